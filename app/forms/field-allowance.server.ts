import { getPaths } from "@conform-to/dom";
import type { $ZodType } from "zod/v4/core";

// Past these a name is not one any form here uses; Conform would still build structures for it.
const MAX_NAME_LENGTH = 1_000;
const MAX_PATH_SEGMENTS = 16;
// Checked before Conform's parser runs: it costs far more per character than this scan.
const TOO_MANY_SEGMENTS = new RegExp(`^(?:[^.[]*[.[]){${MAX_PATH_SEGMENTS}}`);

// Wrappers that change what a field accepts, not which names it has.
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"]);

type Def = {
  type: string;
  innerType?: $ZodType;
  in?: $ZodType;
  out?: $ZodType;
  getter?: () => $ZodType;
  options?: $ZodType[];
  left?: $ZodType;
  right?: $ZodType;
  shape?: Record<string, $ZodType>;
  catchall?: $ZodType;
  valueType?: $ZodType;
  element?: $ZodType;
  items?: $ZodType[];
  checks?: { _zod: { def: { check: string; maximum?: number; length?: number } } }[];
};

const defOf = (schema: $ZodType) => schema._zod.def as unknown as Def;

/**
 * How many times a form post may carry `name` for `schema`, read as Conform reads names
 * (`a.b`, `list[0]`, `list[]`): once for a single value, up to the list's `.max()` (else
 * `maxItems`) for a list, and 0 for a name the schema has no place for.
 */
export function getFieldAllowance(schema: $ZodType, name: string, maxItems: number): number {
  if (name.length > MAX_NAME_LENGTH || TOO_MANY_SEGMENTS.test(name)) return 0;
  let segments: (string | number)[];
  try {
    segments = getPaths(name);
  } catch {
    return 0; // Conform's own parser refuses it (bad syntax, `__proto__`), so it skips it too
  }
  if (segments.length === 0) return 0;
  const target = resolve(schema, segments, maxItems);
  if (!target) return 0;
  return isList(target) ? getMaxItems(target, maxItems) : 1;
}

/** The schema `segments` lead to, wrappers removed; undefined when they lead nowhere. */
function resolve(schema: $ZodType, segments: (string | number)[], maxItems: number): $ZodType | undefined {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return resolve(def.innerType!, segments, maxItems);
  // A pipe's input is what the form sends, unless it is a preprocess function.
  if (def.type === "pipe") {
    const input = defOf(def.in!).type === "transform" ? def.out! : def.in!;
    return resolve(input, segments, maxItems);
  }
  if (def.type === "lazy") return resolve(def.getter!(), segments, maxItems);
  if (def.type === "union") {
    for (const option of def.options!) {
      const found = resolve(option, segments, maxItems);
      if (found) return found;
    }
    return undefined;
  }
  if (def.type === "intersection") {
    return resolve(def.left!, segments, maxItems) ?? resolve(def.right!, segments, maxItems);
  }
  if (segments.length === 0) return schema;
  const [head, ...rest] = segments;
  switch (def.type) {
    case "object": {
      if (typeof head !== "string") return undefined;
      const field = Object.hasOwn(def.shape!, head) ? def.shape![head] : def.catchall;
      return field && resolve(field, rest, maxItems);
    }
    case "record":
      return typeof head === "string" ? resolve(def.valueType!, rest, maxItems) : undefined;
    case "array":
      // `list[]` names the list itself, one value per repeat.
      if (head === "") return rest.length === 0 ? schema : undefined;
      return typeof head === "number" && head < getMaxItems(schema, maxItems)
        ? resolve(def.element!, rest, maxItems)
        : undefined;
    case "tuple":
      return typeof head === "number" && head < def.items!.length
        ? resolve(def.items![head]!, rest, maxItems)
        : undefined;
    default:
      return undefined;
  }
}

function isList(schema: $ZodType) {
  const { type } = defOf(schema);
  return type === "array" || type === "tuple";
}

function getMaxItems(schema: $ZodType, fallback: number) {
  const def = defOf(schema);
  if (def.type === "tuple") return def.items!.length;
  let max = fallback;
  for (const check of def.checks ?? []) {
    const { maximum, length } = check._zod.def;
    max = Math.min(max, maximum ?? length ?? max);
  }
  return max;
}
