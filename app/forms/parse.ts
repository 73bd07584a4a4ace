import type { $ZodIssue, $ZodType, $ZodTypes, output } from "zod/v4/core";

// Beside a form's own fields the toolkit posts the form's id; its buttons, the intent they name.
export const FORM_ID_FIELD = "__form__";
export const INTENT_FIELD = "intent";
export const WRAPPERS = new Set(
  "optional nullable default prefault catch readonly nonoptional".split(" "),
);

type Values = Record<string, unknown>;
type Path = (string | number)[];
export type FormErrors = Record<string, string[] | undefined>;

/** An action's answer that is not a redirect, to the form `formId`; `errors[""]`: the form's. */
export type FormReply = {
  formId?: string;
  status: number;
  values: Values;
  errors: FormErrors;
  message?: string;
  /** The language of what in `errors` is no message key: the API's own words. */
  lang?: string;
};

export const isFormReply = (value: unknown): value is FormReply =>
  isObject(value) && typeof value.status === "number" && isObject(value.errors);

/**
 * Whether the form shows the page's data again rather than what was typed: after a write done,
 * and after a conflict (409), whose data is no longer what the visitor saw (RFC 9110 §13.1).
 */
export const showsPageData = (status: number) => status < 400 || status === 409;

/** `update:3` is the intent `update` for item 3, whose fields are `3.…`; null: no such item. */
export function splitIntent(intent: string): [string, string | null | undefined] {
  const at = intent.indexOf(":");
  if (at < 0) return [intent, undefined];
  const item = parsePath(intent.slice(at + 1));
  return [intent.slice(0, at), item?.length === 1 && typeof item[0] === "string" ? item[0] : null];
}

/** Errors of item `item`'s fields, named `item.…`; its form-level ones are the item's own. */
export const itemErrors = (errors: FormErrors = {}, item?: string) =>
  Object.fromEntries(
    Object.entries(errors).map(([name, list]) => [
      item && name ? `${item}.${name}` : item || name,
      list,
    ]),
  );

// A schema's messages are message keys; a check it words none of says this one's.
const INVALID_KEY = "forms.invalid";

type Parsing = {
  safeParse(
    value: unknown,
    params: { error: () => string },
  ): { success: true; data: unknown } | { success: false; error: { issues: $ZodIssue[] } };
};

/**
 * The same verdict in the browser and the action: the typed value, or message keys by field
 * name (each page's words say them: `useValidatedForm`).
 */
export function checkPayload<Schema extends $ZodType>(
  schema: Schema,
  payload: unknown,
): Checked<Schema> {
  // Zod Mini's schemas and classic Zod's both parse so; the core's own function would bring Zod
  // into every page that imports the toolkit's fields.
  const result = (schema as Schema & Parsing).safeParse(coerceFormValue(schema, payload), {
    error: () => INVALID_KEY,
  });
  if (result.success) return { value: result.data as output<Schema> };
  const errors: FormErrors = {};
  for (const { path = [], message } of result.error.issues) {
    const name = formatPath(path);
    (errors[name] ??= []).push(message);
  }
  return { errors };
}

type Checked<Schema extends $ZodType> =
  { value: output<Schema>; errors?: never } | { value?: never; errors: FormErrors };

// Text trimmed, empty text missing; what does not convert is left for the schema's own message.
function coerceFormValue(schema: $ZodType, value: unknown): unknown {
  const def = (schema as $ZodTypes)._zod.def;
  if (WRAPPERS.has(def.type))
    return coerceFormValue((def as { innerType: $ZodType }).innerType, value);
  if (def.type === "pipe") return coerceFormValue(def.in, value);
  if (def.type === "object") {
    const fields: Values = isObject(value) ? { ...value } : {};
    for (const [name, field] of Object.entries(def.shape))
      fields[name] = coerceFormValue(field, fields[name]);
    return fields;
  }
  if (def.type === "array") {
    const items = value === undefined ? [] : Array.isArray(value) ? value : [value];
    return items
      .map((item) => coerceFormValue(def.element, item))
      .filter((item) => item !== undefined);
  }
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (text === "") return undefined;
  if (def.type === "boolean") return text === "on" ? true : text;
  if (def.type !== "number") return text;
  // Only decimal digits, a minus and a point: Number() would also read 0x10, 1e3, +5 and Infinity.
  const number = /^-?\d+(?:\.\d+)?$/.test(text) ? Number(text) : NaN;
  return Number.isFinite(number) ? number + 0 : text;
}

function isObject(value: unknown): value is Record<string | number, unknown> {
  return typeof value === "object" && value !== null;
}

/** `a.b[0]` as ["a", "b", 0] (`list[]` ends in ""), or null for a name no form here has. */
export function parsePath(name: string): Path | null {
  if (name.length > 1_000 || /^(?:[^.[]*[.[]){16}/.test(name)) return null;
  const path = name.split(/\.|(?=\[)/).map((part) => {
    const index = /^\[(\d*)\]$/.exec(part);
    if (index) return index[1] ? Number(index[1]) : "";
    return /^[^.[\]]+$/.test(part) && !["__proto__", "prototype", "constructor"].includes(part)
      ? part
      : null;
  });
  return path.includes(null) || path[0] === "" ? null : (path as Path);
}

/** A field's name for a path (["items", 0, "name"] is `items[0].name`), as parsePath reads it. */
export const formatPath = (path: PropertyKey[]) =>
  path.reduce<string>((name, key) => {
    if (typeof key === "number") return `${name}[${key}]`;
    return name ? `${name}.${String(key)}` : String(key);
  }, "");

/** Fields as the action receives them: a name nests by its path, and a repeated name is a list. */
export function toPayload(entries: Iterable<[string, FormDataEntryValue]>) {
  const payload: Values = {};
  for (const [name, value] of entries) {
    const path = parsePath(name);
    let node: Record<string | number, unknown> = payload;
    for (const [index, key] of (typeof value === "string" && path ? path : []).entries()) {
      const next = path![index + 1];
      if (next === undefined || next === "") {
        node[key] =
          node[key] === undefined && next === undefined
            ? value
            : [node[key] ?? []].flat().concat(value);
        break;
      }
      const child = node[key];
      node = (
        isObject(child) ? child : (node[key] = typeof next === "number" ? [] : {})
      ) as typeof node;
    }
  }
  return payload;
}

export const getValue = (values: unknown, name: string) =>
  parsePath(name)?.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), values);
