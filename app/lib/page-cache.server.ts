import { createHash } from "node:crypto";
import type { EntryContext } from "@remix-run/node";

// A key this long is not worth computing: a page's data is rarely this large.
const MAX_KEY_LENGTH = 65_536;

class NotPlainData extends Error {}

function requirePlainData(this: unknown, key: string, value: unknown) {
  const original = (this as Record<string, unknown>)[key];
  // An undefined field is left out, as the browser's copy of the data leaves it out.
  const isPlain =
    original === undefined ||
    original === null ||
    typeof original === "string" ||
    typeof original === "number" ||
    typeof original === "boolean" ||
    Array.isArray(original) ||
    (typeof original === "object" && Object.getPrototypeOf(original) === Object.prototype);
  if (!isPlain) throw new NotPlainData();
  return value;
}

/**
 * A SHA-256 digest of `values` as JSON, or undefined when they hold anything JSON would not show
 * as the browser gets it (a Date, a Map, a promise still pending) or pass `maxLength`.
 */
export function digestPlainData(values: unknown[], maxLength = MAX_KEY_LENGTH) {
  try {
    const json = JSON.stringify(values, requirePlainData);
    return json.length <= maxLength
      ? createHash("sha256").update(json).digest("base64url")
      : undefined;
  } catch (error) {
    if (error instanceof NotPlainData) return undefined;
    throw error;
  }
}

/**
 * A weak tag for an anonymous page (weak: each copy carries its own nonce), from all it is rendered
 * from: the build, the address, the status, every route's data and errors. Undefined when the page
 * may not be stored, sets a cookie, or its data cannot be told apart before rendering.
 */
export function getPageTag(
  request: Request,
  status: number,
  headers: Headers,
  context: EntryContext,
) {
  const isRead = request.method === "GET" || request.method === "HEAD";
  const cacheControl = headers.get("Cache-Control") ?? "";
  if (!isRead || status !== 200 || /\bno-store\b/.test(cacheControl) || headers.has("Set-Cookie"))
    return;
  const { loaderData, actionData, errors, matches } = context.staticHandlerContext;
  const url = new URL(request.url);
  const digest = digestPlainData([
    context.manifest.version,
    url.pathname + url.search,
    status,
    matches.map((match) => match.route.id),
    loaderData,
    actionData ?? null,
    errors ?? null,
  ]);
  return digest && `W/"${digest}"`;
}

/** Whether `If-None-Match` names `tag` or any (`*`), compared weakly as RFC 9110 says for GET. */
export function isNotModified(request: Request, tag: string) {
  const asked = request.headers.get("If-None-Match");
  if (!asked) return false;
  const opaque = tag.slice(2);
  return asked.split(",").some((candidate) => {
    const value = candidate.trim();
    return value === "*" || value === opaque || value === `W/${opaque}`;
  });
}
