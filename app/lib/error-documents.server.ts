import { randomBytes } from "node:crypto";
import type { EntryContext } from "@remix-run/node";
import { isRouteErrorResponse } from "@remix-run/react";
import { digestPlainData } from "./page-cache.server";

// Error documents rendered once and sent again to each request that would render the very same one
// (decision 016): keyed on all they are rendered from, kept once asked for twice, the nonce put in.
const MAX_DOCUMENTS = 64;
const MAX_ASKED_ONCE = 256;
// A key this long is not worth keeping: its data is no error document's.
const MAX_KEY_LENGTH = 16_384;

export const NONCE_PLACEHOLDER = randomBytes(16).toString("base64url");

const documents = new Map<string, Buffer[]>();
const askedOnce = new Set<string>();

export function getErrorDocumentKey(request: Request, status: number, context: EntryContext) {
  const { loaderData, actionData, errors } = context.staticHandlerContext;
  if (status < 400 || !errors || !Object.values(errors).every(isRouteErrorResponse))
    return undefined;
  const routeErrors = Object.entries(errors).map(([id, error]) => [id, error.status, error.data]);
  // Kept by digest: what a key holds of a visitor stays in the document only.
  return digestPlainData(
    [request.method, request.url, status, loaderData, actionData ?? null, routeErrors],
    MAX_KEY_LENGTH,
  );
}

export function isAskedAgain(key: string) {
  if (askedOnce.has(key)) return true;
  if (askedOnce.size >= MAX_ASKED_ONCE) askedOnce.delete(askedOnce.values().next().value!);
  askedOnce.add(key);
  return false;
}

export function takeErrorDocument(key: string, nonce: string) {
  const parts = documents.get(key);
  return parts && putNonce(parts, nonce);
}

/** A document rendered with NONCE_PLACEHOLDER, with `nonce` in it; kept unless its render failed. */
export function finishErrorDocument(rendered: Buffer, nonce: string, key: string, keep: boolean) {
  const parts = rendered
    .toString("utf8")
    .split(NONCE_PLACEHOLDER)
    .map((part) => Buffer.from(part));
  if (keep) {
    if (documents.size >= MAX_DOCUMENTS) documents.delete(documents.keys().next().value!);
    documents.set(key, parts);
  }
  return putNonce(parts, nonce);
}

function putNonce(parts: Buffer[], nonce: string) {
  const between = Buffer.from(nonce);
  return Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [part] : [between, part])));
}
