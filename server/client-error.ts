import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { getError, type ErrorCode } from "~/lib/errors";
import { ALLOWED_METHODS } from "./edge";
import { renderErrorPage } from "./error-page";

// Requests Node refuses before Express sees them carry no nonce and need no script.
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

/**
 * Node's own answer to a request it could not parse or that came too slowly (its
 * `clientError`), as the catalogue's page instead of a bare status line; then the connection
 * goes. Nothing is written when an answer has already started.
 */
export function handleClientError(error: Error & { code?: string }, socket: Duplex) {
  // As Node's own handler does: never write into the middle of an answer already under way.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(formatResponse(codeForParserError[error.code ?? ""] ?? "BAD_REQUEST"));
  }
  socket.destroy();
}

/** CONNECT is for proxies: Node hands it over outside Express, so it is refused here. */
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
