import { useForm, type DefaultValue, type SubmissionResult } from "@conform-to/react";
import type { $ZodType } from "zod/v4/core";
import { parseWithSchema } from "./parse-with-schema";

/**
 * A Conform form that validates in the browser with the same schema and parse the action uses.
 * Write its schema with Zod Mini (`import * as z from "zod/mini"`): it ships to the browser.
 *
 * As GOV.UK forms do, nothing is checked while the visitor fills the form in: errors appear
 * after a submit attempt (leaving a field never moves the submit button under the pointer), and
 * from then on each field is checked again as the visitor types. `defaultValue` fills the form
 * (an edit form opens with the saved values); after a rejected post it shows what was sent.
 */
export function useValidatedForm<Input extends Record<string, unknown>, Output>(options: {
  id: string;
  schema: $ZodType<Output, Input>;
  lastResult: SubmissionResult<string[]> | null | undefined;
  defaultValue?: DefaultValue<Input>;
}) {
  const { id, schema, lastResult, defaultValue } = options;
  return useForm<Input, Output>({
    id,
    lastResult,
    defaultValue,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithSchema(formData, schema),
  });
}
