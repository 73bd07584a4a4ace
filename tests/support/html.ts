import { JSDOM } from "jsdom";

/**
 * A page as a browser parses it, so tests ask for elements and their text rather than match
 * serialised markup, which a harmless change of attribute order would break.
 */
export function parseHtml(html: string): Document {
  return new JSDOM(html).window.document;
}

/** The text of the page's first `h1`. */
export function getHeading(html: string) {
  return parseHtml(html).querySelector("h1")?.textContent;
}
