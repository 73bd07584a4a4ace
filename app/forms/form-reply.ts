import type { SubmissionResult } from "@conform-to/react";

/** The field a submit button posts to say which of a page's forms or actions it is (`intent`). */
export const INTENT_FIELD = "intent";

/**
 * What an action answers a submission it did not accept with: the intent it was for (null on a
 * page with one form) and Conform's result, which the form of that intent shows.
 */
export type FormReply = { intent: string | null; result: SubmissionResult<string[]> };

export function isFormReply(value: unknown): value is FormReply {
  return typeof value === "object" && value !== null && "result" in value && "intent" in value;
}
