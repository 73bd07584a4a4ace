import type { $ZodType, $ZodTypes } from "zod/v4/core";
import { getConfig } from "~/lib/config.server";
import { createErrorResponse } from "~/lib/errors";
import { FORM_ID_FIELD, parsePath, WRAPPERS } from "./parse";

// Conform's control fields: no form here posts them, so a post with one was not made by a form here.
const FOREIGN_FIELDS = new Set(["__intent__", "__state__"]);

/** A post's fields, counted before any is read (over FORM_MAX_FIELDS: 413). */
export async function readFormFields(request: Request) {
  const body = await request.text().catch(() => {
    throw createErrorResponse("BAD_REQUEST");
  });
  const maxFields = getConfig().FORM_MAX_FIELDS;
  let count = 0;
  for (let start = 0; start <= body.length && count <= maxFields;) {
    const end = body.indexOf("&", start);
    const stop = end === -1 ? body.length : end;
    if (stop > start) count++;
    start = stop + 1;
  }
  if (count > maxFields) throw createErrorResponse("PAYLOAD_TOO_LARGE");
  return new URLSearchParams(body);
}

/** The fields `schema` has a place for (an item's, without `item.`), each as often as it can use them, else 400. */
export function selectFields(params: URLSearchParams, schema: $ZodType, item?: string) {
  const maxFields = getConfig().FORM_MAX_FIELDS;
  const prefix = item === undefined ? "" : `${item}.`;
  const counts = new Map<string, number>();
  for (const name of params.keys()) counts.set(name, (counts.get(name) ?? 0) + 1);
  const selected: [string, string][] = [];
  for (const [name, value] of params) {
    const own = name.startsWith(prefix) && name !== FORM_ID_FIELD ? name.slice(prefix.length) : "";
    const allowance = getFieldAllowance(schema, own, maxFields);
    if (FOREIGN_FIELDS.has(name) || counts.get(name)! > Math.max(allowance, 1))
      throw createErrorResponse("BAD_REQUEST");
    if (allowance > 0) selected.push([own, value]);
  }
  return selected;
}

/** How often `name` may come for `schema`: once, a list's `.max()` (else `maxItems`), 0 if it has no place. */
export function getFieldAllowance(schema: $ZodType, name: string, maxItems: number): number {
  const path = parsePath(name);
  const target = path && resolve(schema, path, maxItems);
  if (!target) return 0;
  return ["array", "tuple"].includes(target._zod.def.type) ? getMaxItems(target, maxItems) : 1;
}

function resolve(schema: $ZodType, path: (string | number)[], maxItems: number): $ZodType | undefined {
  const def = (schema as $ZodTypes)._zod.def;
  const next = (child: $ZodType | undefined, rest = path) => child && resolve(child, rest, maxItems);
  if (WRAPPERS.has(def.type)) return next((def as { innerType: $ZodType }).innerType);
  // A pipe's input is what the form sends, unless it is a preprocess function.
  if (def.type === "pipe") return next(def.in._zod.def.type === "transform" ? def.out : def.in);
  if (def.type === "lazy") return next(def.getter());
  if (def.type === "union") return def.options.map((option) => next(option)).find(Boolean);
  if (def.type === "intersection") return next(def.left) ?? next(def.right);
  if (path.length === 0) return schema;
  const [head, ...rest] = path;
  if (def.type === "object" && typeof head === "string") {
    return next(Object.hasOwn(def.shape, head) ? def.shape[head] : def.catchall, rest);
  }
  if (def.type === "record" && typeof head === "string") return next(def.valueType, rest);
  if (def.type === "array" && head === "") return rest.length === 0 ? schema : undefined;
  if (def.type === "array" && typeof head === "number" && head < getMaxItems(schema, maxItems)) {
    return next(def.element, rest);
  }
  if (def.type === "tuple" && typeof head === "number") return next(def.items[head], rest);
  return undefined;
}

function getMaxItems(schema: $ZodType, fallback: number) {
  const def = (schema as $ZodTypes)._zod.def;
  if (def.type === "tuple") return def.items.length;
  const limits = (def.checks ?? []).map((check) => check._zod.def as { maximum?: number; length?: number });
  return Math.min(fallback, ...limits.map(({ maximum, length }) => maximum ?? length ?? fallback));
}
