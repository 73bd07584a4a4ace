import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { getError, type ErrorCode } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { ALLOWED_METHODS } from "../edge/checks";
import { renderErrorPage } from "../edge/error-page";

// What Node refuses before Express sees it carries no nonce and needs no script.
const HEADERS = [
  "Content-Type: text/html; charset=utf-8",
  "Cache-Control: no-store",
  "Content-Security-Policy: default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options: nosniff",
  "Referrer-Policy: strict-origin-when-cross-origin",
  "Connection: close",
];
const codeForParserError: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: "HEADERS_TOO_LARGE",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "PAYLOAD_TOO_LARGE",
  ERR_HTTP_REQUEST_TIMEOUT: "REQUEST_TIMEOUT",
};

/** A request Node could not parse, or that came too slowly, gets the catalogue's page unless an answer has started. */
export function handleClientError(error: Error & { code?: string }, socket: Duplex) {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const code = codeForParserError[error.code ?? ""] ?? "BAD_REQUEST";
    const { status } = getError(code);
    socket.write(formatResponse(code));
    // A request the app has is logged by its own line, aborted, with this status.
    if (inFlight) inFlight.statusCode = status;
    else logger.info({ status, reason: error.code }, "refused a request Node could not read");
  }
  socket.destroy();
}

export function refuseConnect(_req: IncomingMessage, socket: Duplex) {
  socket.end(formatResponse("METHOD_NOT_ALLOWED", [`Allow: ${ALLOWED_METHODS.join(", ")}`]));
}

function formatResponse(code: ErrorCode, extraHeaders: string[] = []) {
  const { status, title } = getError(code);
  const body = renderErrorPage(code);
  const head = [
    `HTTP/1.1 ${status} ${title}`,
    ...HEADERS,
    ...extraHeaders,
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return `${head.join("\r\n")}\r\n\r\n${body}`;
}
