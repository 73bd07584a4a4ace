import { INTENT } from "@conform-to/dom";
import { useEffect, useRef, type MouseEvent } from "react";
import { getError } from "~/lib/errors";
import type { FieldMeta } from "./field-meta";

type FormErrors = {
  /** The form's id, as given to `useForm` / `useValidatedForm`. */
  id: string;
  /** Every message by field name; "" holds the form's own (Conform's `form.allErrors`). */
  allErrors: Record<string, string[] | null | undefined>;
};

/**
 * The GOV.UK error summary: shown only after a submit attempt, above the form, with the form's
 * own messages first and then each field's, linked to its field in the order `fields` gives.
 * Messages for names not in `fields` (an API may name others) are listed too, unlinked.
 * Focus moves to it when a submission comes back with errors: on page load without
 * JavaScript (autofocus), after the submit event with it.
 */
export function ErrorSummary({ form, fields }: { form: FormErrors; fields: FieldMeta[] }) {
  const summary = useRef<HTMLDivElement>(null);
  const submitted = useRef(false);

  useEffect(() => {
    const element = document.getElementById(form.id);
    // Conform checks a field as the visitor types by submitting with an intent button: not an attempt.
    const onSubmit = (event: SubmitEvent) => {
      if (event.submitter?.getAttribute("name") !== INTENT) submitted.current = true;
    };
    element?.addEventListener("submit", onSubmit);
    return () => element?.removeEventListener("submit", onSubmit);
  }, [form.id]);

  const linked = new Set(fields.map((field) => field.name));
  const formMessages = form.allErrors[""] ?? [];
  const invalid = fields.filter((field) => field.errors?.length);
  const others = Object.entries(form.allErrors).filter(
    ([name, messages]) => name !== "" && !linked.has(name) && messages?.length,
  );
  const hasErrors = formMessages.length > 0 || invalid.length > 0 || others.length > 0;

  useEffect(() => {
    if (!hasErrors || !submitted.current) return;
    submitted.current = false;
    summary.current?.focus();
  });

  if (!hasErrors) return null;
  return (
    <div
      ref={summary}
      role="alert"
      className="error-summary"
      tabIndex={-1}
      aria-labelledby={`${form.id}-error-summary`}
      // eslint-disable-next-line jsx-a11y/no-autofocus -- GOV.UK: a page that answers a submission with errors opens on them
      autoFocus
    >
      <h2 id={`${form.id}-error-summary`}>{getError("VALIDATION_FAILED").title}</h2>
      <ul>
        {formMessages.map((message) => (
          <li key={message}>{message}</li>
        ))}
        {invalid.map((field) => (
          <li key={field.name}>
            <a href={`#${field.id}`} onClick={(event) => focusField(event, field.id)}>
              {field.errors!.join(" ")}
            </a>
          </li>
        ))}
        {others.map(([name, messages]) => (
          <li key={name}>{messages!.join(" ")}</li>
        ))}
      </ul>
    </div>
  );
}

/** Following the link only scrolls to the field; GOV.UK's summary also puts the cursor in it. */
function focusField(event: MouseEvent, id: string) {
  const field = document.getElementById(id);
  if (!field) return;
  event.preventDefault();
  field.focus();
}
