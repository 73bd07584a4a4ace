import { createHash } from "node:crypto";
import type { EntryContext } from "@remix-run/node";
import fresh from "fresh";
import { createErrorResponse } from "./errors";

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

/** What a 304 carries of the 200 it stands for (RFC 9110 §15.4.5); Node adds the Date. */
export const REFRESHED_HEADERS = ["cache-control", "content-location", "etag", "expires", "vary"];

/**
 * A 2xx page's conditions in RFC 9110 §13.2.2's order: a failed `If-Match` throws 412, an
 * `If-None-Match` naming its tag returns the 304. No page has a Last-Modified to compare dates to.
 */
export function answerConditionally(
  request: Request,
  status: number,
  headers: Headers,
  context: EntryContext,
) {
  if (status < 200 || status > 299) return;
  refuseFailedPrecondition(request);
  const etag = getPageTag(request, status, headers, context);
  if (!etag) return;
  headers.set("ETag", etag);
  // The condition alone: fresh's reading of a request's no-cache is a cache's, not an origin's.
  if (!fresh({ "if-none-match": request.headers.get("If-None-Match") ?? undefined }, { etag }))
    return;
  const kept = new Headers();
  for (const name of REFRESHED_HEADERS) if (headers.has(name)) kept.set(name, headers.get(name)!);
  return new Response(null, { status: 304, headers: kept });
}

/** 412 for an `If-Match` but `*`: it compares strongly, and every page tag is weak (§13.1.1). */
export function refuseFailedPrecondition(request: Request) {
  const asked = request.headers.get("If-Match");
  if (asked !== null && asked.trim() !== "*") throw createErrorResponse("PRECONDITION_FAILED");
}

/**
 * A weak tag for an anonymous page (weak: each copy carries its own nonce), from all it is rendered
 * from: the build, the address, the status, every route's data and errors. Undefined when the page
 * may not be stored, sets a cookie, or its data cannot be told apart before rendering.
 */
function getPageTag(request: Request, status: number, headers: Headers, context: EntryContext) {
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
