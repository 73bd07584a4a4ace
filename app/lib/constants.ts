// Business constants and limits, safe in the browser; per-environment values are in env.server.ts.

/** The product's name is not specified yet; it is shown in the header and the page titles. */
export const APP_NAME = "Web App";

/** One sentence for search results and link previews, until the spec says what the product is. */
export const APP_DESCRIPTION = "A web application whose pages are being specified.";

/** Where a page sends its web vitals (`app/lib/web-vitals.ts`), counted by the server's metrics. */
export const WEB_VITALS_PATH = "/__reports/vitals";
