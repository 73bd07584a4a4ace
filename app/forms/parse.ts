import type { $ZodType, $ZodTypes, output } from "zod/v4/core";

// Beside a form's own fields the toolkit posts the form's id, and its button the action it names.
export const FORM_ID_FIELD = "__form__";
export const INTENT_FIELD = "intent";

// Wrappers that change what a field accepts, not which names it has or how its text is read.
export const WRAPPERS = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "catch",
  "readonly",
  "nonoptional",
]);

export type FormErrors = Record<string, string[] | undefined>;

/** An action's answer that is not a redirect: who posted, what was sent, messages by name ("": the post's). */
export type FormReply = {
  formId: string | null;
  intent: string | null;
  status: number;
  page: boolean;
  values: Record<string, unknown>;
  errors: FormErrors;
  message?: string;
};

export const isFormReply = (value: unknown): value is FormReply =>
  typeof value === "object" && value !== null && "formId" in value && "errors" in value;

/** `update:3` is the intent `update` for item 3 (its fields are named `3.…`); null: not an item's name. */
export function splitIntent(intent: string): [string, string | undefined | null] {
  const at = intent.indexOf(":");
  if (at === -1) return [intent, undefined];
  const item = intent.slice(at + 1);
  return [intent.slice(0, at), /^[\w-]+$/.test(item) && parsePath(item) ? item : null];
}

/** The same verdict in the browser and the action: the typed value, or messages by field name. */
export function checkPayload<Schema extends $ZodType>(schema: Schema, payload: unknown): Checked<Schema> {
  const result = schema["~standard"].validate(coerceFormValue(schema, payload));
  if (result instanceof Promise) throw new TypeError("A form's schema must not be async.");
  if (!result.issues) return { value: result.value as output<Schema> };
  const errors: FormErrors = {};
  for (const { path = [], message } of result.issues) {
    const name = path.reduce<string>((name, segment) => {
      const key = typeof segment === "object" ? segment.key : segment;
      return typeof key === "number" ? `${name}[${key}]` : name ? `${name}.${String(key)}` : String(key);
    }, "");
    (errors[name] ??= []).push(message);
  }
  return { errors };
}

type Checked<Schema extends $ZodType> =
  { value: output<Schema>; errors?: never } | { value?: never; errors: FormErrors };

// Text is trimmed and empty text is missing (a name of spaces fails "required"); what does not
// convert is left for the schema to refuse with its own message.
export function coerceFormValue(schema: $ZodType, value: unknown): unknown {
  const def = (schema as $ZodTypes)._zod.def;
  if (WRAPPERS.has(def.type)) return coerceFormValue((def as { innerType: $ZodType }).innerType, value);
  if (def.type === "pipe") return coerceFormValue(def.in, value);
  if (def.type === "object") {
    const fields: Record<string, unknown> = isRecord(value) ? { ...value } : {};
    for (const [name, field] of Object.entries(def.shape))
      fields[name] = coerceFormValue(field, fields[name]);
    return fields;
  }
  if (def.type === "array") {
    const items = value === undefined ? [] : Array.isArray(value) ? value : [value];
    return items.map((item) => coerceFormValue(def.element, item)).filter((item) => item !== undefined);
  }
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (text === "") return undefined;
  if (def.type === "number") return readDecimal(text);
  return def.type === "boolean" && text === "on" ? true : text;
}

// Number() would also read 0x10, 0b11, 1e3, +5 and Infinity.
export function readDecimal(text: string): number | string {
  const number = /^-?\d+(?:\.\d+)?$/.test(text) ? Number(text) : NaN;
  return Number.isFinite(number) ? number + 0 : text;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

type Path = (string | number)[];

/** `a.b[0]` as ["a", "b", 0] (`list[]` ends in ""), or null for a name no form here has. */
export function parsePath(name: string): Path | null {
  if (name.length > 1_000 || /^(?:[^.[]*[.[]){16}/.test(name)) return null;
  const path = name.split(/\.|(?=\[)/).map((part) => {
    const index = /^\[(\d*)\]$/.exec(part);
    if (index) return index[1] ? Number(index[1]) : "";
    return /^[^.[\]]+$/.test(part) && !["__proto__", "prototype", "constructor"].includes(part) ? part : null;
  });
  return path.includes(null) ? null : (path as Path);
}

/** A form's fields as the action receives them: a name nests by its path, a repeated name is a list. */
export function toPayload(entries: Iterable<[string, FormDataEntryValue]>) {
  const payload: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    const path = parsePath(name);
    if (path && typeof value === "string") setValue(payload, path, value);
  }
  return payload;
}

function setValue(parent: Record<string | number, unknown>, [key, ...rest]: Path, value: string) {
  const current = parent[key!];
  if (key === "" || key === undefined) return;
  if (rest.length === 0 || rest[0] === "") {
    parent[key] = current === undefined && rest.length === 0 ? value : [current ?? []].flat().concat(value);
    return;
  }
  const child = isRecord(current) || Array.isArray(current) ? current : typeof rest[0] === "number" ? [] : {};
  parent[key] = child;
  setValue(child as Record<string | number, unknown>, rest, value);
}

export const getValue = (values: unknown, name: string) =>
  parsePath(name)?.reduce<unknown>(
    (value, key) =>
      isRecord(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined,
    values,
  );
