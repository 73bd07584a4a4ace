/**
 * Business constants and limits, safe to ship to the browser. The product's own constants go
 * here once the spec names them; secrets and per-environment values belong in config.server.ts.
 */

/** The product's name is not specified yet; it is shown in the header and the page titles. */
export const APP_NAME = "Web App";

/** One sentence for search results and link previews, until the spec says what the product is. */
export const APP_DESCRIPTION = "A web application whose pages are being specified.";
