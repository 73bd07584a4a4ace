import { z } from "zod";
import { createErrorResponse, type ErrorCode } from "~/lib/errors";

type Schema = z.ZodType;
type Part = Schema | undefined;
type Values = Record<string, unknown>;

// What each field does is in docs/calls.md.
export type Call<
  Params extends Part = Part,
  Query extends Part = Part,
  Body extends Part = Part,
  Result extends Schema = Schema,
> = {
  method: "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
  name?: string;
  path: `/${string}`;
  params?: Params;
  query?: Query;
  body?: Body;
  bodyType?: "json" | "form";
  response: Result;
  errors?: Partial<Record<number, ErrorCode>>;
  formErrors?: Partial<Record<number, ReadFormErrors>>;
  idempotencyKey?: boolean;
  auth?: "visitor";
};

/** Declares a call to the API once; loaders and actions make it with `callApi`. */
export function defineCall<
  Result extends Schema,
  Params extends Part = undefined,
  Query extends Part = undefined,
  Body extends Part = undefined,
>(call: Call<Params, Query, Body, Result>) {
  return call;
}

type Field<Name extends string, S> = S extends Schema
  ? object extends z.input<S>
    ? { [K in Name]?: z.input<S> }
    : { [K in Name]: z.input<S> }
  : { [K in Name]?: undefined };

export type CallInput<C extends Call> =
  C extends Call<infer Params, infer Query, infer Body, Schema>
    ? Field<"params", Params> & Field<"query", Query> & Field<"body", Body>
    : never;

export type CallResult<C extends Call> = z.output<C["response"]>;

/** The call's URL and body for `input`: a 400 when off its schemas or a path value leaves its segment. */
export function encodeCall(call: Call, input: object, baseUrl: string) {
  const { params = {}, query = {}, body } = input as { params?: unknown; query?: unknown; body?: unknown };
  const url = buildUrl(baseUrl, call.path, parseInput(call.params, params), parseInput(call.query, query));
  if (!call.body) return { url };
  const value = parseInput(call.body, body);
  if (call.bodyType === "form") {
    const form = new URLSearchParams(value as Record<string, string>).toString();
    return { url, contentType: "application/x-www-form-urlencoded", body: form };
  }
  return { url, contentType: "application/json", body: JSON.stringify(value) };
}

function parseInput(schema: Part, value: unknown) {
  const result = schema?.safeParse(value);
  if (result && !result.success) throw createErrorResponse("BAD_REQUEST");
  return result?.data as Record<string, unknown> | undefined;
}

function buildUrl(baseUrl: string, path: string, params: Values = {}, query: Values = {}) {
  const filled = path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    const text = typeof value === "string" || typeof value === "number" ? String(value) : "";
    if (text === "" || text === "." || text === "..") throw createErrorResponse("BAD_REQUEST");
    return encodeURIComponent(text);
  });
  const url = new URL(baseUrl.replace(/\/$/, "") + filled);
  for (const [name, value] of Object.entries(query)) {
    for (const item of value == null ? [] : [value].flat()) url.searchParams.append(name, String(item));
  }
  return url;
}

/** An upstream answer as the form shows it: Conform's `reply({ formErrors, fieldErrors })`. */
export type FormErrors = { formErrors: string[]; fieldErrors: Record<string, string[]> };
type ReadFormErrors = (body: unknown) => FormErrors | undefined;

const ProblemDetailsSchema = z.object({
  title: z.string().optional().catch(undefined),
  detail: z.string().optional().catch(undefined),
  errors: z
    .array(z.object({ detail: z.string(), pointer: z.string().optional().catch(undefined) }))
    .optional(),
});

/** RFC 9457 problem details, `errors` as in the RFC's own example; `fields` renames the API's names. */
export function problemDetails({ fields = {} }: { fields?: Record<string, string> } = {}): ReadFormErrors {
  return (body) => {
    const problem = ProblemDetailsSchema.safeParse(body);
    if (!problem.success) return undefined;
    const { title, detail, errors = [] } = problem.data;
    const answer: FormErrors = { formErrors: [], fieldErrors: {} };
    for (const error of errors) {
      const name = getFieldName(error.pointer);
      if (name) (answer.fieldErrors[fields[name] ?? name] ??= []).push(error.detail);
      else answer.formErrors.push(error.detail);
    }
    const message = detail ?? title;
    if (!errors.length && message) answer.formErrors.push(message);
    return errors.length || message ? answer : undefined;
  };
}

/** One form-level message whatever the answer says, as for a 409. */
export function formMessage(message: string): ReadFormErrors {
  return () => ({ formErrors: [message], fieldErrors: {} });
}

// A form's field name for a JSON pointer (RFC 6901), plain or a URI fragment: `/items/0/name` is
// `items[0].name`, "" the form itself.
function getFieldName(pointer = "") {
  let path: string;
  try {
    path = pointer.startsWith("#") ? decodeURIComponent(pointer.slice(1)) : pointer;
  } catch {
    return "";
  }
  if (!path.startsWith("/")) return "";
  const segments = path.slice(1).split("/");
  const names = segments.map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
  return names.reduce(
    (name, key) => (/^(0|[1-9]\d*)$/.test(key) ? `${name}[${key}]` : name ? `${name}.${key}` : key),
    "",
  );
}
