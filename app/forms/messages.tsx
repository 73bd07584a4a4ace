import { useActionData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type MouseEvent, type ReactNode, type RefObject } from "react";
import { getError } from "~/lib/errors";
import type { FieldMeta } from "./fields";
import type { FormState } from "./index";
import { INTENT_FIELD, isFormReply } from "./parse";

/** The reply to the form `formId` (or to every form, from a post that named none); none: the page's. */
export function useReply(formId?: string) {
  const reply = useActionData();
  if (!isFormReply(reply)) return undefined;
  if (formId === undefined) return reply.page ? reply : undefined;
  return reply.formId === formId || reply.formId === null ? reply : undefined;
}

/** GOV.UK's error summary: the form's own messages, then each field's, linked to it in `fields` order. */
export function ErrorSummary({ form, fields }: { form: FormState; fields: FieldMeta[] }) {
  const summary = useRef<HTMLDivElement>(null);
  const focusedAttempt = useRef(form.attempts);
  const linked = new Set(fields.map((field) => field.name));
  const messages = form.errors[""] ?? [];
  const invalid = fields.filter((field) => field.errors?.length);
  const others = Object.entries(form.errors).filter(
    ([name, list]) => name && !linked.has(name) && list?.length,
  );
  const hasErrors = messages.length + invalid.length + others.length > 0;
  useEffect(() => {
    if (!hasErrors || focusedAttempt.current === form.attempts) return;
    focusedAttempt.current = form.attempts;
    summary.current?.focus();
  });
  if (!hasErrors) return null;
  const items = [
    ...messages.map((message) => <li key={message}>{message}</li>),
    ...invalid.map(({ id, name, errors }) => (
      <li key={name}>
        <a href={`#${id}`} onClick={(event) => focusField(event, id)}>
          {errors!.join(" ")}
        </a>
      </li>
    )),
    ...others.map(([name, list]) => <li key={name}>{list!.join(" ")}</li>),
  ];
  const { title } = getError("VALIDATION_FAILED");
  return <Alert box={summary} id={`${form.id}-error-summary`} title={title} items={items} />;
}

/** An answer about the whole page in its own words: a write done on a form that stays, or refused
 * (the API's 403, 409, or a refusal naming no field). */
export function PageMessage() {
  const reply = useReply();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), [reply]);
  if (!reply) return null;
  if (reply.status < 400)
    return (
      <p role="status" className="flash">
        {reply.message}
      </p>
    );
  const { title, message } = getError(reply.status === 403 ? "FORBIDDEN" : "NOT_CHANGED");
  const messages = reply.errors[""]?.length ? reply.errors[""] : [message];
  const items = messages.map((text) => <li key={text}>{text}</li>);
  return <Alert box={box} id="page-message" title={title} items={items} />;
}

type AlertProps = { box: RefObject<HTMLDivElement>; id: string; title: string; items: ReactNode[] };

function Alert({ box, id, title, items }: AlertProps) {
  return (
    <div
      ref={box}
      role="alert"
      className="error-summary"
      tabIndex={-1}
      aria-labelledby={`${id}-title`}
      // eslint-disable-next-line jsx-a11y/no-autofocus -- GOV.UK: a page answering a post with errors opens on them
      autoFocus
    >
      <h2 id={`${id}-title`}>{title}</h2>
      <ul>{items}</ul>
    </div>
  );
}

// Following the link only scrolls to the field; GOV.UK's summary also puts the cursor in it.
function focusField(event: MouseEvent, id: string) {
  const field = document.getElementById(id);
  if (!field) return;
  event.preventDefault();
  field.focus();
}

type SubmitButtonProps = { children: ReactNode; pendingLabel: string; intent?: string };

/** Says `pendingLabel` and ignores clicks while the post it made is on its way; other buttons do not. */
export function SubmitButton({ children, pendingLabel, intent }: SubmitButtonProps) {
  const navigation = useNavigation();
  const button = useRef<HTMLButtonElement>(null);
  const [usedLast, setUsedLast] = useState(false);
  useEffect(() => {
    const onSubmit = (event: SubmitEvent) => setUsedLast(event.submitter === button.current);
    document.addEventListener("submit", onSubmit);
    return () => document.removeEventListener("submit", onSubmit);
  }, []);
  const pending = usedLast && navigation.state !== "idle" && navigation.formData !== undefined;
  return (
    <button
      ref={button}
      type="submit"
      name={intent ? INTENT_FIELD : undefined}
      value={intent}
      aria-disabled={pending || undefined}
      onClick={(event) => pending && event.preventDefault()}
    >
      {pending ? pendingLabel : children}
    </button>
  );
}
