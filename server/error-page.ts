import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { APP_NAME } from "~/lib/constants";
import { getError, type ErrorCode } from "~/lib/errors";

/**
 * A complete HTML document for a refusal the server makes itself, before Remix runs: the
 * catalogue's words and a way home, nothing from the request. No inline style or script, so
 * it passes the Content-Security-Policy as it is.
 */
export function renderErrorPage(code: ErrorCode) {
  const { status, title, message } = getError(code);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${APP_NAME}</title>
</head>
<body>
<main id="main">
<p>Error ${status}</p>
<h1>${title}</h1>
<p>${message}</p>
<p><a href="/">Go to the home page</a></p>
</main>
</body>
</html>
`;
}

/** Answers with the catalogue's error page; refusals are never cached. */
export function sendErrorPage(res: ExpressResponse, code: ErrorCode, headers: Record<string, string> = {}) {
  if (hasBody(res.req) && !res.req.complete) closeAfterDraining(res.req);
  res
    .status(getError(code).status)
    .set({ ...headers, "Cache-Control": "no-store" })
    .type("html")
    .send(renderErrorPage(code));
}

export function hasBody(req: ExpressRequest) {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && Number(length) > 0);
}

const DRAIN_MS = 1_000;

/**
 * A connection closed with request body still unread is reset, and a client still sending may
 * lose the answer before reading it. So the rest of the body is read and discarded (Node does
 * that once the answer is sent), for a moment at most; then the connection goes.
 */
function closeAfterDraining(req: ExpressRequest) {
  req.res?.once("finish", () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), DRAIN_MS);
    req.once("end", () => clearTimeout(timer));
    req.once("close", () => clearTimeout(timer));
  });
}
