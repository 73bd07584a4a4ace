import { data, redirect } from "@remix-run/node";
import * as z from "zod/mini";
import type { $ZodObject, $ZodType, $ZodTypes, output } from "zod/v4/core";
import { getConfig } from "~/lib/config.server";
import { createSignedCookie } from "~/lib/cookies.server";
import { createErrorResponse, errorCatalogue, isErrorCode } from "~/lib/errors";
import { checkPayload, FORM_ID_FIELD, INTENT_FIELD, itemErrors, parsePath } from "./parse";
import { showsPageData, splitIntent, toPayload, WRAPPERS } from "./parse";
import type { FormErrors, FormReply } from "./parse";

/** A 303 with a flash message shown there once, or a `message` on the same page. */
export type SubmitOutcome =
  { redirectTo: string; flash?: string; headers?: HeadersInit } | { message: string };

/** What a step throws, and `callApi` for an answer its call's `formErrors` reads: on the form. */
export class FormRefusal extends Error {
  constructor(
    readonly status: number,
    readonly errors: FormErrors,
    /** The language of the API's own words among `errors` (Content-Language), if it said. */
    readonly lang?: string,
  ) {
    super(`refused with ${status}: messages for the form`);
  }
}

/** The schema of a post whose only control is its button (a server module's, so the page's
 * browser code needs no validator). */
export const NoFieldsSchema = z.object({});

type Handler<S extends $ZodType> = {
  schema: S;
  submit: (value: output<S>, item: string) => Promise<SubmitOutcome>;
};

/** Reads, checks (400) and submits a post; a refusal comes back to its form with its status. */
export async function submitForm<S extends $ZodType>(
  request: Request,
  schema: S,
  submit: Handler<S>["submit"],
) {
  return handleSubmission(await readFormFields(request), { schema, submit });
}

/** For buttons that name intents: `update`, or `update:3` for item 3, whose fields are `3.…`. */
export async function submitIntent<S extends Record<string, $ZodType>>(
  request: Request,
  handlers: { [Intent in keyof S]: Handler<S[Intent]> },
) {
  const fields = await readFormFields(request);
  const intents = fields.getAll(INTENT_FIELD);
  const [name, item] = splitIntent(intents.length === 1 ? intents[0]! : "");
  if (!Object.hasOwn(handlers, name) || item === null) throw createErrorResponse("BAD_REQUEST");
  return handleSubmission(fields, handlers[name]!, item);
}

async function handleSubmission<S extends $ZodType>(
  fields: URLSearchParams,
  handler: Handler<S>,
  item?: string,
) {
  const posted = selectFields(fields, handler.schema, item);
  const { value, errors } = checkPayload(handler.schema, toPayload(posted));
  const values = toPayload([...fields].filter(([name]) => name !== FORM_ID_FIELD));
  const formId = fields.get(FORM_ID_FIELD) ?? undefined;
  const reply = (status: number, errors: FormErrors = {}, more?: Partial<FormReply>) => {
    // What was sent now shows the page's data; what else was typed is given back.
    if (showsPageData(status)) for (const name of sentNames(value, item)) delete values[name];
    const body: FormReply = { ...more, formId, status, values, errors: itemErrors(errors, item) };
    return data(body, { status });
  };
  if (errors) return reply(400, errors);
  try {
    const outcome = await handler.submit(value, item ?? "");
    if ("message" in outcome) return reply(200, {}, { message: outcome.message });
    const response = redirect(outcome.redirectTo, { status: 303, headers: outcome.headers });
    if (outcome.flash)
      response.headers.append("Set-Cookie", await flashCookie.serialize(outcome.flash));
    return response;
  } catch (error) {
    if (error instanceof FormRefusal)
      return reply(error.status, error.errors, { lang: error.lang ?? getConfig().API_LANGUAGE });
    const code = await readUpstreamFailure(error);
    if (!code) throw error;
    return reply(errorCatalogue[code].status, { "": [`errors.${code}.message`] });
  }
}

// The API failing (callApi's 502, 503 and 504) is said on the form that posted, what was typed kept.
async function readUpstreamFailure(error: unknown) {
  if (!(error instanceof Response) || error.status < 500) return undefined;
  const answer = error.clone().json() as Promise<{ code?: unknown }>;
  const { code } = await answer.catch(() => ({ code: undefined }));
  return isErrorCode(code) && code.startsWith("UPSTREAM_") ? code : undefined;
}

const sentNames = (value: unknown, item?: string) =>
  item === undefined ? Object.keys(value ?? {}) : [item];

const flashCookie = createSignedCookie("flash");

/** The flash message, if any, and the Set-Cookie header that clears it: it is shown once. */
export async function takeFlash(request: Request) {
  const value: unknown = await flashCookie.parse(request.headers.get("Cookie"));
  if (value === null) return { flash: null, headers: new Headers() };
  const headers = new Headers({ "Set-Cookie": await flashCookie.serialize("", { maxAge: 0 }) });
  return { flash: typeof value === "string" && value ? value : null, headers };
}

/** The address's parameters read as a GET form's fields; a value the schema refuses is a 400. */
export function parseSearchParams<S extends $ZodObject>(request: Request, schema: S) {
  const search = new URL(request.url).searchParams;
  const values = Object.keys(schema._zod.def.shape).map((name) => {
    const all = search.getAll(name);
    return [name, all.length > 1 ? all : all[0]];
  });
  const { value, errors } = checkPayload(schema, Object.fromEntries(values));
  if (errors) throw createErrorResponse("BAD_REQUEST");
  return value;
}

// Conform's control fields: no form here posts them, so a post with one was not made here.
const FOREIGN_FIELDS = new Set(["__intent__", "__state__"]);

/** A post's fields, counted before any is read (over FORM_MAX_FIELDS: 413). */
async function readFormFields(request: Request) {
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

/** The fields `schema` has a place for (an item's, without `item.`), each as often as it can be. */
function selectFields(params: URLSearchParams, schema: $ZodType, item?: string) {
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

/** How often `name` may come: once, a list's `.max()` (else `maxItems`), 0 if it has no place. */
export function getFieldAllowance(schema: $ZodType, name: string, maxItems: number): number {
  const path = parsePath(name);
  const target = path && resolve(schema, path, maxItems);
  if (!target) return 0;
  return ["array", "tuple"].includes(target._zod.def.type) ? getMaxItems(target, maxItems) : 1;
}

function resolve(
  schema: $ZodType,
  path: (string | number)[],
  maxItems: number,
): $ZodType | undefined {
  const def = (schema as $ZodTypes)._zod.def;
  const next = (child: $ZodType | undefined, rest = path) =>
    child && resolve(child, rest, maxItems);
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
  const limits = (def.checks ?? []).map(
    (check) => check._zod.def as { maximum?: number; length?: number },
  );
  return Math.min(fallback, ...limits.map(({ maximum, length }) => maximum ?? length ?? fallback));
}
