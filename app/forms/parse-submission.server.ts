import { INTENT, parse, STATE } from "@conform-to/dom";
import type { $ZodType } from "zod/v4/core";
import { getConfig } from "~/lib/config.server";
import { createErrorResponse } from "~/lib/errors";
import { getFieldAllowance } from "./field-allowance.server";
import { parseWithSchema } from "./parse-with-schema";

// Conform's control fields hold a short JSON instruction, never a form's worth of data; a long
// one is refused before JSON.parse walks it.
const MAX_CONTROL_FIELD_LENGTH = 16 * 1024;
const MAX_VALUE_DEPTH = 32;

/**
 * Reads a form post and parses it with the form's schema, in time linear in the body's size:
 * the fields are counted before any is parsed (over FORM_MAX_FIELDS: 413), each name may come
 * as often as the schema can use it (else 400), names the schema has no place for are dropped,
 * and only then does Conform build the submission. A body the toolkit cannot read is a 400.
 */
export async function parseSubmission<Schema extends $ZodType>(request: Request, schema: Schema) {
  return parseFormFields(await readFormFields(request), schema);
}

/** A form post's fields, counted before anything else reads them (over FORM_MAX_FIELDS: 413). */
export async function readFormFields(request: Request) {
  const body = await request.text().catch(() => {
    throw createErrorResponse("BAD_REQUEST");
  });
  const maxFields = getConfig().FORM_MAX_FIELDS;
  if (countFields(body, maxFields) > maxFields) throw createErrorResponse("PAYLOAD_TOO_LARGE");
  return new URLSearchParams(body);
}

/** `parseSubmission` for fields already read with `readFormFields`. */
export function parseFormFields<Schema extends $ZodType>(params: URLSearchParams, schema: Schema) {
  const maxFields = getConfig().FORM_MAX_FIELDS;
  const fields = selectFields(params, schema, maxFields);
  if (!fields || !isReadableByConform(fields, maxFields)) throw createErrorResponse("BAD_REQUEST");
  return parseWithSchema(fields, schema);
}

/** Non-empty `&`-separated parts, as URLSearchParams reads them; counting stops past `limit`. */
export function countFields(body: string, limit: number) {
  let count = 0;
  for (let start = 0; start <= body.length && count <= limit;) {
    const end = body.indexOf("&", start);
    const stop = end === -1 ? body.length : end;
    if (stop > start) count++;
    start = stop + 1;
  }
  return count;
}

/**
 * The fields the schema has a place for, or null when a name comes more often than it can use
 * (a name it has no place for may come once, and is dropped).
 */
function selectFields(params: URLSearchParams, schema: $ZodType, maxItems: number) {
  const counts = new Map<string, number>();
  for (const name of params.keys()) counts.set(name, (counts.get(name) ?? 0) + 1);
  const kept = new Set<string>();
  for (const [name, count] of counts) {
    const isControl = name === INTENT || name === STATE;
    const allowance = isControl ? 1 : getFieldAllowance(schema, name, maxItems);
    if (count > Math.max(allowance, 1)) return null;
    if (isControl && params.get(name)!.length > MAX_CONTROL_FIELD_LENGTH) return null;
    if (allowance > 0) kept.add(name);
  }
  const fields = new URLSearchParams();
  for (const [name, value] of params) if (kept.has(name)) fields.append(name, value);
  return fields;
}

/**
 * Conform applies the control fields (`__intent__`, `__state__`) while it builds the
 * submission and throws on ones it cannot read; an intent can also name a path or carry a
 * value no field could. So the submission is first built without the schema, and refused
 * unless it parses and stays within the form's bounds.
 */
function isReadableByConform(fields: URLSearchParams, maxValues: number) {
  try {
    const submission = parse(fields, { resolve: () => ({ value: undefined }) });
    return isBounded(submission.payload, maxValues) && isBounded(submission.reply().state, maxValues);
  } catch {
    return false;
  }
}

/** At most `maxValues` values (a sparse list counts its length) nested at most MAX_VALUE_DEPTH deep. */
function isBounded(root: unknown, maxValues: number) {
  const pending = [{ value: root, depth: 0 }];
  let seen = 0;
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth > MAX_VALUE_DEPTH) return false;
    const children = Array.isArray(value) ? value : Object.values(value);
    seen += Array.isArray(value) ? value.length : children.length;
    if (seen > maxValues) return false;
    for (const child of children) pending.push({ value: child, depth: depth + 1 });
  }
  return true;
}
