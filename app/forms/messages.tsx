import { useActionData, useNavigation } from "@remix-run/react";
import {
  createContext,
  useContext,
  useEffect,
  useRef,
  type MouseEvent,
  type ReactNode,
  type RefObject,
} from "react";
import { getError } from "~/lib/errors";
import type { FieldMeta } from "./fields";
import { FORM_ID_FIELD, INTENT_FIELD, isFormReply, type FormErrors, type FormReply } from "./parse";

/** The id of the form a submit button is in (`ValidatedForm` provides it). */
export const FormIdContext = createContext<string | undefined>(undefined);

type FormState = { id: string; errors: FormErrors; attempts: number };

export const isAboutPage = (reply: FormReply) =>
  reply.status !== 400 && Object.keys(reply.errors).every((name) => name === "");

/** The reply to the form `formId` (a post naming no form answers all), else the reply about the page:
 * a write done, or an API answer that names no field. */
export function useReply(formId?: string) {
  const reply = useActionData();
  if (!isFormReply(reply)) return undefined;
  if (formId === undefined) return isAboutPage(reply) ? reply : undefined;
  return reply.formId === undefined || reply.formId === formId ? reply : undefined;
}

/** GOV.UK's error summary: the form's own messages, then each field's, linked to it in `fields` order. */
export function ErrorSummary({ form, fields }: { form: FormState; fields: FieldMeta[] }) {
  const summary = useRef<HTMLDivElement>(null);
  const focusedAttempt = useRef(form.attempts);
  const linked = new Set(fields.map((field) => field.name));
  const others = Object.entries(form.errors).filter(([name, list]) => !linked.has(name) && list?.length);
  const invalid = fields.filter((field) => field.errors?.length);
  useEffect(() => {
    if (others.length + invalid.length === 0 || focusedAttempt.current === form.attempts) return;
    focusedAttempt.current = form.attempts;
    summary.current?.focus();
  });
  if (others.length + invalid.length === 0) return null;
  const items = [
    ...(form.errors[""] ?? []).map((text) => <li key={text}>{text}</li>),
    ...invalid.map(({ id, name, errors }) => (
      <li key={name}>
        <a href={`#${id}`} onClick={(event) => focusField(event, id)}>
          {errors!.join(" ")}
        </a>
      </li>
    )),
    ...others.filter(([name]) => name).map(([name, list]) => <li key={name}>{list!.join(" ")}</li>),
  ];
  return (
    <Alert
      box={summary}
      id={`${form.id}-error-summary`}
      title={getError("VALIDATION_FAILED").title}
      items={items}
    />
  );
}

/** A reply about the whole page, in its own words: a write done, or refused (403, 409, no field named). */
export function PageMessage() {
  const reply = useReply();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), [reply]);
  if (!reply) return null;
  if (reply.status < 400) {
    return (
      <p role="status" className="flash">
        {reply.message}
      </p>
    );
  }
  const { title, message } = getError(reply.status === 403 ? "FORBIDDEN" : "NOT_CHANGED");
  const items = (reply.errors[""] ?? [message]).map((text) => <li key={text}>{text}</li>);
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
  event.preventDefault();
  document.getElementById(id)?.focus();
}

type SubmitButtonProps = { children: ReactNode; pendingLabel: string; intent?: string };

/** Says `pendingLabel` and ignores clicks while the post it made is on its way; other buttons do not. */
export function SubmitButton({ children, pendingLabel, intent }: SubmitButtonProps) {
  const { formData, formMethod } = useNavigation();
  const formId = useContext(FormIdContext);
  const pending =
    formMethod?.toUpperCase() === "POST" &&
    formData?.get(INTENT_FIELD) === (intent ?? null) &&
    formData?.get(FORM_ID_FIELD) === (formId ?? null);
  return (
    <button
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
