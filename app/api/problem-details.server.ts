import { formatPaths } from "@conform-to/dom";
import { z } from "zod";
import type { Call, FormErrors, ReadFormErrors } from "./define-call";

/**
 * What `callApi` throws for an upstream answer its call shows on the form (define-call.ts
 * `formErrors`); `replyWithApiErrors` turns it into the form's submission result.
 */
export class UpstreamFormErrors extends Error {
  constructor(
    readonly status: number,
    readonly errors: FormErrors,
  ) {
    super(`upstream answered ${status} with messages for the form`);
  }
}

/** The call's form errors for an upstream answer, or undefined when it declares none or they cannot be read. */
export async function readUpstreamFormErrors(call: Call, status: number, readBody: () => Promise<unknown>) {
  const read = call.formErrors?.[status];
  if (!read) return undefined;
  const errors = read(await readBody().catch(() => undefined));
  return errors ? new UpstreamFormErrors(status, errors) : undefined;
}

const ProblemDetailsSchema = z.object({
  title: z.string().optional().catch(undefined),
  detail: z.string().optional().catch(undefined),
  errors: z
    .array(z.object({ detail: z.string(), pointer: z.string().optional().catch(undefined) }))
    .optional(),
});

/**
 * Reads RFC 9457 problem details (`application/problem+json`) laid out as the RFC's own example of
 * a validation answer: an `errors` list, each with a `detail` and a JSON `pointer` to its field
 * (`#/name`, `/items/0/name`). Errors without a pointer to a field, or an answer with no list
 * (its `detail`, else its `title`), become form-level messages. `fields` renames the API's field
 * names to the form's (`{ display_name: "name" }`).
 */
export function problemDetails({ fields = {} }: { fields?: Record<string, string> } = {}): ReadFormErrors {
  return (body) => {
    const problem = ProblemDetailsSchema.safeParse(body);
    if (!problem.success) return undefined;
    const { title, detail, errors = [] } = problem.data;
    const answer: FormErrors = { formErrors: [], fieldErrors: {} };
    for (const error of errors) {
      const name = getFieldName(error.pointer);
      if (name) (answer.fieldErrors[fields[name] ?? name] ??= []).push(error.detail);
      else answer.formErrors.push(error.detail);
    }
    const message = detail ?? title;
    if (!errors.length && message) answer.formErrors.push(message);
    return errors.length || message ? answer : undefined;
  };
}

/** One form-level message whatever the answer says: for a 409, "someone else changed this". */
export function formMessage(message: string): ReadFormErrors {
  return () => ({ formErrors: [message], fieldErrors: {} });
}

/**
 * Conform's field name for a JSON pointer (RFC 6901), plain or as a URI fragment:
 * `#/items/0/name` is `items[0].name`. The whole document (`#`, "") or anything that is not a
 * pointer is "", the form itself.
 */
export function getFieldName(pointer: string | undefined): string {
  let path = pointer ?? "";
  if (path.startsWith("#")) {
    try {
      path = decodeURIComponent(path.slice(1));
    } catch {
      return "";
    }
  }
  if (!path.startsWith("/")) return "";
  const segments = path
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
  return formatPaths(segments);
}
