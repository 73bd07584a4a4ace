import { JSDOM } from "jsdom";

/** A page as a browser parses it: tests ask for elements, not for markup attribute order. */
export function parseHtml(html: string): Document {
  return new JSDOM(html).window.document;
}

export function getHeading(html: string) {
  return parseHtml(html).querySelector("h1")?.textContent;
}
