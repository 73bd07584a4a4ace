import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { renderToStaticMarkup } from "react-dom/server";
import { ErrorView } from "~/components/error-boundary";
import { APP_NAME } from "~/lib/constants";
import { getError, type CatalogueError, type ErrorCode } from "~/lib/errors";

const renderedPages = new Map<ErrorCode, string>();

/**
 * A complete HTML document for a refusal the server makes itself, before Remix runs: the app's
 * error view with the catalogue's words, nothing from the request. No inline style or script,
 * so it passes the Content-Security-Policy as it is. Each page is rendered once.
 */
export function renderErrorPage(code: ErrorCode) {
  let page = renderedPages.get(code);
  if (page === undefined) {
    page = "<!DOCTYPE html>\n" + renderToStaticMarkup(<ErrorDocument error={getError(code)} />);
    renderedPages.set(code, page);
  }
  return page;
}

function ErrorDocument({ error }: { error: CatalogueError }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${error.title} · ${APP_NAME}`}</title>
      </head>
      <body>
        <main id="main">
          <ErrorView
            status={error.status}
            error={error}
            HomeLink={({ children }) => <a href="/">{children}</a>}
          />
        </main>
      </body>
    </html>
  );
}

/** Answers with the catalogue's error page; refusals are never cached. */
export function sendErrorPage(res: ExpressResponse, code: ErrorCode, headers: Record<string, string> = {}) {
  res.locals.refusal = code;
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
