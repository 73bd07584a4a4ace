import { formatPaths, parse } from "@conform-to/dom";
import { safeParse, type $ZodIssue, type $ZodType, type $ZodTypes, type output } from "zod/v4/core";

/**
 * Conform's parse of a form post with a Zod schema: what `parseWithZod` does, without its
 * coercion, which imports classic Zod (16 KB gzipped more in the browser, measured). The browser
 * and the action run this same function, so a form is judged the same with JavaScript or without.
 */
export function parseWithSchema<Schema extends $ZodType>(
  formData: FormData | URLSearchParams,
  schema: Schema,
) {
  return parse<output<Schema>, string[]>(formData, {
    resolve(payload) {
      const result = safeParse(schema, coerceFormValue(schema, payload));
      return result.success ? { value: result.data } : { error: getMessagesByName(result.error.issues) };
    },
  });
}

/**
 * A posted value as the schema expects it: text trimmed, and empty text missing (so a name of
 * spaces fails "required"), numbers from their decimal text, a checked checkbox ("on") true.
 * Anything that does not convert is left for the schema to reject with its own message.
 */
export function coerceFormValue(schema: $ZodType, value: unknown): unknown {
  const def = (schema as $ZodTypes)._zod.def;
  switch (def.type) {
    case "optional":
    case "nonoptional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
      return coerceFormValue(def.innerType, value);
    case "pipe":
      return coerceFormValue(def.in, value);
    case "object": {
      const shape = def.shape;
      const fields = isRecord(value) ? value : {};
      const result: Record<string, unknown> = { ...fields };
      for (const [name, field] of Object.entries(shape)) result[name] = coerceFormValue(field, fields[name]);
      return result;
    }
    case "array": {
      const element = def.element;
      const items = value === undefined ? [] : Array.isArray(value) ? value : [value];
      return items.map((item) => coerceFormValue(element, item)).filter((item) => item !== undefined);
    }
    case "number":
      return convertText(value, readDecimal);
    case "boolean":
      return convertText(value, (text) => (text === "on" ? true : text));
    default:
      return convertText(value, (text) => text);
  }
}

// Only what people write as a number: ASCII digits, a leading minus, a decimal point. Number()
// would also read 0x10, 0b11, 1e3, +5 and Infinity.
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** A number from its decimal text (-0 is 0), or the text itself for the schema to refuse. */
export function readDecimal(text: string): number | string {
  if (!DECIMAL.test(text)) return text;
  const number = Number(text);
  return Number.isFinite(number) ? number + 0 : text;
}

function convertText(value: unknown, convert: (text: string) => unknown) {
  if (typeof value !== "string") return value;
  const text = value.trim();
  return text === "" ? undefined : convert(text);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function getMessagesByName(issues: readonly $ZodIssue[]) {
  const messages: Record<string, string[]> = {};
  for (const issue of issues) {
    const name = formatPaths(
      issue.path.filter((segment): segment is string | number => typeof segment !== "symbol"),
    );
    (messages[name] ??= []).push(issue.message);
  }
  return messages;
}
