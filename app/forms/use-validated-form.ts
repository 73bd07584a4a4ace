import { useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { $ZodType } from "zod/v4/core";

/**
 * A Conform form that validates in the browser with the same schema the action parses with.
 * Import it only from routes whose forms have free-text fields: it brings Zod to the browser.
 */
export function useValidatedForm<Input extends Record<string, unknown>, Output>(options: {
  id: string;
  schema: $ZodType<Output, Input>;
  lastResult: SubmissionResult<string[]> | null | undefined;
}) {
  const { id, schema, lastResult } = options;
  return useForm<Input, Output>({
    id,
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
}
