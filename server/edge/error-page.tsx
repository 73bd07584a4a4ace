import type { Response } from "express";
import { renderToStaticMarkup } from "react-dom/server";
import { ErrorView, getErrorTitle } from "~/components/error-boundary";
import {
  DEFAULT_LOCALE,
  getDirection,
  LOCALES,
  matchLocale,
  type ShippedLocale,
} from "~/i18n/locales";
import { pickMessages, shellMessages } from "~/i18n/messages.server";
import { createTranslator } from "~/i18n/translate";
import { getError, type ErrorCode } from "~/lib/errors";

const renderedPages = new Map<string, string>();

/**
 * The catalogue's page for a refusal the server makes itself, in `locale`: nothing from the
 * request, no inline script or style.
 */
export function renderErrorPage(code: ErrorCode, locale: ShippedLocale = DEFAULT_LOCALE) {
  const key = `${code} ${locale}`;
  let page = renderedPages.get(key);
  if (page === undefined) {
    const error = getError(code);
    const t = createTranslator(
      locale,
      pickMessages(locale, shellMessages, ["meta", "errors"]),
      "UTC",
    );
    const document = (
      <html lang={locale} dir={getDirection(locale)}>
        <head>
          <meta charSet="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{t.title(getErrorTitle(t, error))}</title>
        </head>
        <body>
          <main id="main">
            <ErrorView
              status={error.status}
              error={error}
              t={t}
              HomeLink={({ children }) => <a href="/">{children}</a>}
            />
          </main>
        </body>
      </html>
    );
    renderedPages.set(key, (page = "<!DOCTYPE html>\n" + renderToStaticMarkup(document)));
  }
  return page;
}

/**
 * The page, never cached, in the language Accept-Language asks for (before Remix, no cookie is
 * read).
 */
export function sendErrorPage(res: Response, code: ErrorCode) {
  const req = res.req;
  res.locals.refusal = code;
  const locale = matchLocale(req.get("Accept-Language") ?? null, LOCALES) ?? DEFAULT_LOCALE;
  res
    .status(getError(code).status)
    .set({ "Cache-Control": "no-store", "Content-Language": locale, Vary: "Accept-Language" })
    .type("html")
    .send(renderErrorPage(code, locale));
}
