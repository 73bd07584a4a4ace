import { data, redirect } from "@remix-run/node";
import type { $ZodType, output } from "zod/v4/core";
import { createErrorResponse, getError } from "~/lib/errors";
import { serializeFlash } from "~/lib/cookies.server";
import { INTENT_FIELD, type FormReply } from "./form-reply";
import { parseFormFields, readFormFields } from "./parse-submission.server";
import { replyWithApiErrors } from "./reply-with-api-errors.server";

/** Where a write that succeeded leads: a 303 to `redirectTo`, with `flash` shown there once. */
export type SubmitOutcome = { redirectTo: string; flash?: string };

/** Makes the write with the valid, typed values; the calls it makes with `callApi` may throw. */
export type SubmitHandler<Schema extends $ZodType> = (value: output<Schema>) => Promise<SubmitOutcome>;

export type IntentHandlers<Schemas extends Record<string, $ZodType>> = {
  [Intent in keyof Schemas]: { schema: Schemas[Intent]; submit: SubmitHandler<Schemas[Intent]> };
};

/**
 * An action's steps for a page with one form: parse the post with `schema` (400 with the
 * errors), `submit` it, then 303 to its outcome with its flash message, or the API's answer on
 * the form (its `formErrors`, with the API's status). Anything else goes to the error boundary.
 */
export async function submitForm<Schema extends $ZodType>(
  request: Request,
  schema: Schema,
  submit: SubmitHandler<Schema>,
) {
  return handleSubmission(await readFormFields(request), null, schema, submit);
}

/**
 * `submitForm` for a page with several actions: the post's `intent` (its button's value) picks
 * the schema and the submit step; an intent the page does not have is a 400 page. A reply goes
 * to the form of its intent only (`useValidatedForm({ intent })`).
 */
export async function submitIntent<Schemas extends Record<string, $ZodType>>(
  request: Request,
  handlers: IntentHandlers<Schemas>,
) {
  const fields = await readFormFields(request);
  const intents = fields.getAll(INTENT_FIELD);
  const intent = intents.length === 1 ? intents[0]! : "";
  if (!Object.hasOwn(handlers, intent)) throw createErrorResponse("BAD_REQUEST");
  const { schema, submit } = handlers[intent]!;
  return handleSubmission(fields, intent, schema, submit);
}

async function handleSubmission<Schema extends $ZodType>(
  fields: URLSearchParams,
  intent: string | null,
  schema: Schema,
  submit: SubmitHandler<Schema>,
) {
  const submission = parseFormFields(fields, schema);
  if (submission.status !== "success") {
    const reply: FormReply = { intent, result: submission.reply() };
    return data(reply, { status: getError("VALIDATION_FAILED").status });
  }
  try {
    const { redirectTo, flash } = await submit(submission.value);
    const headers = flash ? { "Set-Cookie": await serializeFlash(flash) } : undefined;
    return redirect(redirectTo, { status: 303, headers });
  } catch (error) {
    return replyWithApiErrors(submission, error, intent);
  }
}
