import { data, redirect } from "@remix-run/node";
import type { $ZodObject, $ZodType, output } from "zod/v4/core";
import { UpstreamFormErrors } from "~/api/client.server";
import { serializeFlash } from "~/lib/cookies.server";
import { createErrorResponse } from "~/lib/errors";
import { checkPayload, FORM_ID_FIELD, INTENT_FIELD, itemErrors, splitIntent, toPayload } from "./parse";
import type { FormErrors, FormReply } from "./parse";
import { readFormFields, selectFields } from "./read-post.server";

/** A 303 with a flash message shown there once, or a `message` on the same page, keeping what was typed. */
export type SubmitOutcome =
  { redirectTo: string; flash?: string; headers?: HeadersInit } | { message: string };

type Handler<S extends $ZodType> = {
  schema: S;
  submit: (value: output<S>, item: string) => Promise<SubmitOutcome>;
};

/** Reads, checks (400) and submits a post; an API answer the call shows on forms comes back with its status. */
export async function submitForm<S extends $ZodType>(
  request: Request,
  schema: S,
  submit: Handler<S>["submit"],
) {
  return handleSubmission(await readFormFields(request), { schema, submit });
}

/** For buttons that name intents: `update`, or `update:3` for item 3, whose fields are named `3.…`. */
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
  const { value, errors } = checkPayload(
    handler.schema,
    toPayload(selectFields(fields, handler.schema, item)),
  );
  const values = toPayload([...fields].filter(([name]) => name !== FORM_ID_FIELD));
  const formId = fields.get(FORM_ID_FIELD) ?? undefined;
  const reply = (status: number, errors?: FormErrors, message?: string) =>
    data<FormReply>({ formId, status, values, errors: itemErrors(errors, item), message }, { status });
  if (errors) return reply(400, errors);
  try {
    const outcome = await handler.submit(value, item ?? "");
    if ("message" in outcome) {
      // What the intent sent is saved: its fields show the page's data again, the others what was typed.
      for (const name of item === undefined ? Object.keys(value ?? {}) : [item]) delete values[name];
      return reply(200, undefined, outcome.message);
    }
    const response = redirect(outcome.redirectTo, { status: 303, headers: outcome.headers });
    if (outcome.flash) response.headers.append("Set-Cookie", await serializeFlash(outcome.flash));
    return response;
  } catch (error) {
    if (!(error instanceof UpstreamFormErrors)) throw error;
    return reply(error.status, { "": error.errors.formErrors, ...error.errors.fieldErrors });
  }
}

/** The address's parameters read as a GET form's fields; a value the schema refuses is a 400 page. */
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
