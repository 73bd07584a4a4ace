import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Config } from "~/lib/config.server";
import { getErrorTitle } from "~/components/error-boundary";
import { DEFAULT_LOCALE } from "~/i18n/locales";
import { pickMessages, shellMessages } from "~/i18n/messages.server";
import { createTranslator } from "~/i18n/translate";
import { getError, type ErrorCode } from "~/lib/errors";
import type { AppEntry } from "../app";
import { ALLOWED_METHODS } from "../edge/checks";
import { renderErrorPage } from "../edge/error-page";
import { getInertPageHeaders } from "../edge/security-headers";

const codeForParserError: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: "HEADERS_TOO_LARGE",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "PAYLOAD_TOO_LARGE",
  ERR_HTTP_REQUEST_TIMEOUT: "REQUEST_TIMEOUT",
};

// A request Node could not read has no headers to choose a language by: the default one, whose
// title is also the status line's reason.
const t = createTranslator(
  DEFAULT_LOCALE,
  pickMessages(DEFAULT_LOCALE, shellMessages, ["errors"]),
  "UTC",
);

/** The catalogue's page for what Node refuses before Express sees it: a request it could not
 * parse or that came too slowly (unless an answer has started), and `CONNECT`. */
export function createNodeRefusals(config: Config, logger: AppEntry["logger"]) {
  // The same headers as every page's, for one that carries no nonce and needs no script.
  const headers = [
    "Content-Type: text/html; charset=utf-8",
    "Cache-Control: no-store",
    `Content-Language: ${DEFAULT_LOCALE}`,
    ...getInertPageHeaders(config).map(([name, value]) => `${name}: ${value}`),
    "Connection: close",
  ];
  const formatResponse = (code: ErrorCode, extraHeaders: string[] = []) => {
    const error = getError(code);
    const body = renderErrorPage(code);
    const length = `Content-Length: ${Buffer.byteLength(body)}`;
    const head = [
      `HTTP/1.1 ${error.status} ${getErrorTitle(t, error)}`,
      ...headers,
      ...extraHeaders,
      length,
    ];
    return `${head.join("\r\n")}\r\n\r\n${body}`;
  };
  return {
    onClientError(error: Error & { code?: string }, socket: Duplex) {
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
    },
    onConnect(_req: IncomingMessage, socket: Duplex) {
      socket.end(formatResponse("METHOD_NOT_ALLOWED", [`Allow: ${ALLOWED_METHODS.join(", ")}`]));
    },
  };
}
