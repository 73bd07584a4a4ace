import { data, redirect } from "@remix-run/node";
import type { $ZodObject, $ZodType, output } from "zod/v4/core";
import { serializeFlash } from "~/lib/cookies.server";
import { createErrorResponse } from "~/lib/errors";
import {
  checkPayload,
  FORM_ID_FIELD,
  INTENT_FIELD,
  splitIntent,
  toPayload,
  type FormErrors,
  type FormReply,
} from "./parse";
import { readFormFields, selectFields } from "./read-post.server";

/**
 * What a write that succeeded leads to: 303 to `redirectTo` with `flash` shown there once, or, for
 * a form that must keep what was typed elsewhere on it, the same page again with `message`.
 */
export type SubmitOutcome =
  { redirectTo: string; flash?: string; headers?: HeadersInit } | { message: string };

type Handler<Schema extends $ZodType> = {
  schema: Schema;
  submit: (value: output<Schema>, item: string) => Promise<SubmitOutcome>;
};

/**
 * An action's steps: read the post within bounds, check it with `schema` (400 with the errors),
 * `submit` it, then answer with its outcome; an API answer the call shows on forms (`formErrors`)
 * goes back with the API's status. Anything else is thrown to the error boundary.
 */
export async function submitForm<Schema extends $ZodType>(
  request: Request,
  schema: Schema,
  submit: Handler<Schema>["submit"],
) {
  return handleSubmission(await readFormFields(request), null, { schema, submit });
}

/** `submitForm` for buttons that name intents (`update`, or `update:3` for item 3's fields `3.*`). */
export async function submitIntent<Schemas extends Record<string, $ZodType>>(
  request: Request,
  handlers: { [Intent in keyof Schemas]: Handler<Schemas[Intent]> },
) {
  const fields = await readFormFields(request);
  const intents = fields.getAll(INTENT_FIELD);
  const [name, item] = splitIntent(intents.length === 1 ? intents[0]! : "");
  if (!Object.hasOwn(handlers, name) || item === null) throw createErrorResponse("BAD_REQUEST");
  return handleSubmission(fields, intents[0]!, handlers[name]!, item);
}

async function handleSubmission<Schema extends $ZodType>(
  fields: URLSearchParams,
  intent: string | null,
  { schema, submit }: Handler<Schema>,
  item?: string,
) {
  const { value, errors } = checkPayload(schema, toPayload(selectFields(fields, schema, item)));
  const values = toPayload([...fields].filter(([name]) => name !== FORM_ID_FIELD));
  const prefix = item === undefined ? "" : `${item}.`;
  const reply = (status: number, errors: FormErrors, page = false, message?: string) => {
    const named = Object.fromEntries(
      Object.entries(errors).map(([name, list]) => [name && prefix + name, list]),
    );
    const formId = fields.get(FORM_ID_FIELD);
    return data<FormReply>({ formId, intent, status, page, values, errors: named, message }, { status });
  };
  if (errors) return reply(400, errors);
  try {
    const outcome = await submit(value, item ?? "");
    if ("message" in outcome) {
      // What this intent sent is now saved: its fields show the page's data again, the rest what was typed.
      if (item !== undefined) delete values[item];
      else for (const name of Object.keys(value ?? {})) delete values[name];
      return reply(200, {}, true, outcome.message);
    }
    const response = redirect(outcome.redirectTo, { status: 303, headers: outcome.headers });
    if (outcome.flash) response.headers.append("Set-Cookie", await serializeFlash(outcome.flash));
    return response;
  } catch (error) {
    if (!isFormAnswer(error)) throw error;
    const { formErrors, fieldErrors } = error.errors;
    return reply(error.status, { "": formErrors, ...fieldErrors }, Object.keys(fieldErrors).length === 0);
  }
}

type FormAnswer = Error & {
  status: number;
  errors: { formErrors: string[]; fieldErrors: Record<string, string[]> };
};

/** What `callApi` throws for an answer its call shows on forms (`formErrors`): the API's status and words. */
function isFormAnswer(error: unknown): error is FormAnswer {
  const { status, errors } = (error ?? {}) as Partial<FormAnswer>;
  return error instanceof Error && typeof status === "number" && Array.isArray(errors?.formErrors);
}

/** A loader's search parameters read as a GET form's fields; a value the schema refuses is a 400 page. */
export function parseSearchParams<Schema extends $ZodObject>(request: Request, schema: Schema) {
  const search = new URL(request.url).searchParams;
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(schema._zod.def.shape)) {
    const all = search.getAll(name);
    values[name] = all.length > 1 ? all : all[0];
  }
  const { value, errors } = checkPayload(schema, values);
  if (errors) throw createErrorResponse("BAD_REQUEST");
  return value;
}
