import type { z } from "zod";
import type { ErrorCode } from "~/lib/errors";

type Schema = z.ZodType;

export type Call<
  Params extends Schema | undefined = Schema | undefined,
  Query extends Schema | undefined = Schema | undefined,
  Body extends Schema | undefined = Schema | undefined,
  Result extends Schema = Schema,
> = {
  method: "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** How logs and outcome events name the call; the method and path template when unset. */
  name?: string;
  /** Path under API_BASE_URL; each `:name` segment is filled, encoded, from `params`. */
  path: `/${string}`;
  params?: Params;
  query?: Query;
  body?: Body;
  /** How the body is sent: JSON (the default) or `application/x-www-form-urlencoded`. */
  bodyType?: "json" | "form";
  /** The answer's JSON; an empty body is parsed as `undefined`. */
  response: Result;
  /** The catalogue entry for each upstream 4xx this call expects; any other 4xx is a bad response. */
  errors?: Partial<Record<number, ErrorCode>>;
  /**
   * The upstream 4xx answers a write's form shows beside its fields instead of an error page,
   * each read by its reader (`problemDetails()` for RFC 9457, `formMessage(...)` for a 409; see
   * `problem-details.server.ts`). `callApi` throws what the reader returns; the action hands it
   * to the form with `replyWithApiErrors`. An answer its reader cannot read falls back to `errors`.
   */
  formErrors?: Partial<Record<number, ReadFormErrors>>;
  /**
   * Sends an `Idempotency-Key` header, the same on every retry, so a POST, PATCH or DELETE may be
   * retried like a read: the API applies it once whatever the number of copies it receives.
   */
  idempotencyKey?: boolean;
  /**
   * `"visitor"`: made on the signed-in visitor's behalf, with their access token as
   * `Authorization: Bearer` (a visitor who is not signed in is asked to). Calls without it never
   * carry a credential.
   */
  auth?: "visitor";
};

/** An upstream answer as the form shows it: Conform's `reply({ formErrors, fieldErrors })`. */
export type FormErrors = { formErrors: string[]; fieldErrors: Record<string, string[]> };

/** Reads an upstream answer's JSON body (undefined when empty or not JSON) into form errors. */
export type ReadFormErrors = (body: unknown) => FormErrors | undefined;

/** Declares a call to the API once; loaders and actions make it with `callApi`. */
export function defineCall<
  Result extends Schema,
  Params extends Schema | undefined = undefined,
  Query extends Schema | undefined = undefined,
  Body extends Schema | undefined = undefined,
>(call: Call<Params, Query, Body, Result>) {
  return call;
}

/** A field of a call's input: required when its schema has one, optional when it accepts `{}`. */
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

export type QueryValue =
  string | number | boolean | null | undefined | readonly (string | number | boolean)[];

/**
 * The URL of a call: `path` under `baseUrl` with each `:name` replaced by its encoded value, and
 * the query appended. Returns null when a value could change the path's shape (empty, `.`, `..`).
 */
export function buildCallUrl(
  baseUrl: string,
  path: string,
  params: Record<string, unknown> = {},
  query: Record<string, QueryValue> = {},
): URL | null {
  let valid = true;
  const filled = path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    const text = typeof value === "string" || typeof value === "number" ? String(value) : "";
    if (text === "" || text === "." || text === "..") valid = false;
    return encodeURIComponent(text);
  });
  if (!valid) return null;
  const url = new URL(baseUrl.replace(/\/$/, "") + filled);
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  return url;
}
