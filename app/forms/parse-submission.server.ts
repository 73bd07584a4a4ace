import type { $ZodType } from "zod/v4/core";
import { createErrorResponse } from "~/lib/errors";
import { parseWithSchema } from "./parse-with-schema";

/**
 * Reads a form post and parses it with the form's schema. A body that cannot be read as a form
 * is a 400, never a crash.
 */
export async function parseSubmission<Schema extends $ZodType>(request: Request, schema: Schema) {
  const formData = await request.formData().catch(() => {
    throw createErrorResponse("BAD_REQUEST");
  });
  return parseWithSchema(formData, schema);
}
