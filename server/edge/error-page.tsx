import type { Request, Response } from "express";
import { renderToStaticMarkup } from "react-dom/server";
import { ErrorView } from "~/components/error-boundary";
import { APP_NAME } from "~/lib/constants";
import { getError, type ErrorCode } from "~/lib/errors";

const DRAIN_MS = 1_000;
const renderedPages = new Map<ErrorCode, string>();

/** The catalogue's page for a refusal the server makes itself: nothing from the request, no inline script or style. */
export function renderErrorPage(code: ErrorCode) {
  let page = renderedPages.get(code);
  if (page === undefined) {
    const error = getError(code);
    const document = (
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
    renderedPages.set(code, (page = "<!DOCTYPE html>\n" + renderToStaticMarkup(document)));
  }
  return page;
}

/** The page, never cached; a body left unread is drained a moment, as closing at once could lose the page. */
export function sendErrorPage(res: Response, code: ErrorCode) {
  const req = res.req;
  res.locals.refusal = code;
  if (hasBody(req) && !req.complete) {
    res.once("finish", () => {
      if (req.complete) return;
      const timer = setTimeout(() => req.socket.destroy(), DRAIN_MS);
      req.once("end", () => clearTimeout(timer)).once("close", () => clearTimeout(timer));
    });
  }
  res.status(getError(code).status).set("Cache-Control", "no-store").type("html").send(renderErrorPage(code));
}

export function hasBody(req: Request) {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"]) > 0;
}
