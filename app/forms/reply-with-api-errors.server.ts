import type { Submission } from "@conform-to/react";
import { data } from "@remix-run/node";
import { UpstreamFormErrors } from "~/api/client.server";
import type { FormReply } from "./form-reply";

/**
 * For an action's `catch` around the call it makes with a valid submission: an upstream answer
 * the call maps onto its form (define-call.ts `formErrors`) becomes the form's submission result,
 * with the upstream's status, so the page shows the API's words beside the fields and keeps the
 * visitor's input. Anything else is thrown on, to the error boundary.
 */
export function replyWithApiErrors(
  submission: Submission<unknown>,
  error: unknown,
  intent: string | null = null,
) {
  if (!(error instanceof UpstreamFormErrors)) throw error;
  const reply: FormReply = { intent, result: submission.reply(error.errors) };
  return data(reply, { status: error.status });
}
