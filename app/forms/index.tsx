import { Form, useActionData, useNavigation } from "@remix-run/react";
import { Fragment, useEffect, useRef, useState } from "react";
import type { FormEvent, MouseEvent, ReactNode, RefObject } from "react";
import type { $ZodType, input } from "zod/v4/core";
import { useTranslate, type Translate } from "~/i18n/translate";
import { getErrorForStatus, type ErrorCode } from "~/lib/errors";
import { FormIdContext, joined, type FieldMeta } from "./fields";
import {
  checkPayload,
  FORM_ID_FIELD,
  getValue,
  INTENT_FIELD,
  isFormReply,
  itemErrors,
} from "./parse";
import { showsPageData, splitIntent, toPayload, type FormErrors, type FormReply } from "./parse";

type Schemas = $ZodType | Record<string, $ZodType>;
type Values<S> = S extends $ZodType
  ? input<S>
  : S extends Record<string, infer T>
    ? input<T>
    : never;
type Names<T> = T extends unknown ? keyof T & string : never;
type FormOptions<S> = { id: string; schema?: S; defaultValue?: object };
type Check = {
  reply?: FormReply;
  errors: FormErrors;
  status: number;
  attempts: number;
  resets: number;
  sent?: "sent" | "posting";
};
export type FormState = ReturnType<typeof useValidatedForm>[0];

/** The reply to the form `formId` (a post naming no form answers all), else any reply. */
function useReply(formId?: string) {
  const reply = useActionData();
  if (!isFormReply(reply)) return undefined;
  return formId === undefined || reply.formId === undefined || reply.formId === formId
    ? reply
    : undefined;
}

/**
 * A form checked in the browser with its action's schema (one per intent where its buttons name
 * several): errors show after a submit attempt, then change as the visitor types; a reply to it
 * (its fields' errors and its own message) shows on it.
 */
export function useValidatedForm<S extends Schemas>({ id, schema, defaultValue }: FormOptions<S>) {
  const reply = useReply(id);
  const t = useTranslate();
  const { state: navigation } = useNavigation();
  const fromReply = (check: Check): Check =>
    check.reply === reply
      ? check
      : {
          ...check,
          reply,
          errors: reply?.errors ?? {},
          status: reply?.status ?? 400,
          attempts: check.attempts + 1,
        };
  const [state, setState] = useState(() =>
    fromReply({ errors: {}, status: 400, attempts: 0, resets: 0 }),
  );
  let next =
    state.sent === "sent" && navigation === "submitting"
      ? { ...state, sent: "posting" as const }
      : state;
  if (next.sent === "posting" && navigation === "idle") {
    // Back on this page: after a write done or a conflict the form shows the page's data again.
    // The reply may have come while the page's data was still loading: its errors stay.
    const errors = reply?.errors ?? {};
    const attempts = Object.keys(errors).length ? next.attempts : 0;
    next = { ...next, sent: undefined };
    if (!reply || showsPageData(reply.status))
      next = { ...next, errors, attempts, resets: next.resets + 1 };
  }
  next = fromReply(next);
  if (next !== state) setState(next);
  useEffect(() => {
    if (state.resets) (document.getElementById(id) as HTMLFormElement | null)?.reset();
  }, [state.resets, id]);

  const submitter = useRef<HTMLElement | null>(null);
  const check = (form: HTMLFormElement): FormErrors => {
    const button = submitter.current?.isConnected ? submitter.current : null;
    const [intent, item] = splitIntent(
      button?.getAttribute("name") === INTENT_FIELD ? button.getAttribute("value")! : "",
    );
    const rules =
      !schema || "_zod" in schema ? schema : Object.hasOwn(schema, intent) ? schema[intent] : null;
    const payload = toPayload(new FormData(form, button));
    return rules && item !== null
      ? itemErrors(checkPayload(rules as $ZodType, item ? payload[item] : payload).errors, item)
      : {};
  };
  const values =
    reply && showsPageData(reply.status)
      ? { ...defaultValue, ...reply.values }
      : (reply?.values ?? defaultValue);
  const field = (name: string): FieldMeta => {
    const value = getValue(values, name);
    const text = typeof value === "number" ? String(value) : value === true ? "on" : value;
    const defaultText = typeof text === "string" ? text : undefined;
    const errors = state.errors[name]?.map(say(t, reply?.lang));
    return { id: `${id}-${name}`, name, errors, defaultValue: defaultText };
  };
  const form = {
    id,
    /** By field name, `""` the form's own: each a message of the page's, or the API's words. */
    errors: Object.fromEntries(
      Object.entries(state.errors).map(([name, list]) => [name, list?.map(say(t, reply?.lang))]),
    ) as Record<string, ReactNode[] | undefined>,
    status: state.status,
    attempts: state.attempts,
    refused: (reply?.status ?? 0) >= 400,
    /** A field the schema does not name, such as one row's: `form.field(`${row.id}.quantity`)`. */
    field,
    onSubmit(event: FormEvent<HTMLFormElement>) {
      submitter.current = (event.nativeEvent as SubmitEvent).submitter;
      const errors = check(event.currentTarget);
      const sent = Object.keys(errors).length ? undefined : ("sent" as const);
      if (!sent) event.preventDefault();
      setState((current) => ({
        ...current,
        errors,
        status: 400,
        attempts: current.attempts + 1,
        sent,
      }));
    },
    onInput(event: FormEvent<HTMLFormElement>) {
      if (state.attempts) setState({ ...state, errors: check(event.currentTarget), status: 400 });
    },
  };
  const fields = new Proxy({} as Record<Names<Values<S>>, FieldMeta>, {
    get: (_, name: string) => field(name),
  });
  return [form, fields] as const;
}

type ValidatedFormProps = {
  form: FormState;
  action?: string;
  className?: string;
  children: ReactNode;
};

/** A `<Form method="post">` that posts its id, so that the reply comes back to it. */
export function ValidatedForm({ form, children, ...props }: ValidatedFormProps) {
  const { id, onSubmit, onInput, refused } = form;
  return (
    <Form
      method="post"
      id={id}
      onSubmit={onSubmit}
      onInput={onInput}
      noValidate
      {...props}
      // While it shows a refusal, the page message does not (forms.css).
      data-refused={refused || undefined}
    >
      <input type="hidden" name={FORM_ID_FIELD} value={id} />
      <FormIdContext.Provider value={id}>{children}</FormIdContext.Provider>
    </Form>
  );
}

/** A message key in the page's words; else the API's own words, marked with their language. */
const say = (t: Translate, lang?: string) => (message: string) => {
  const text = t.text(message);
  if (text !== message || !lang) return text;
  return (
    <span key={text} lang={lang}>
      {text}
    </span>
  );
};

const REFUSAL_TITLES: Record<number, ErrorCode> = { 403: "FORBIDDEN", 409: "NOT_CHANGED" };

function getRefusalTitle(t: Translate, status: number) {
  const code =
    status >= 500
      ? getErrorForStatus(status).code
      : (REFUSAL_TITLES[status] ?? "VALIDATION_FAILED");
  return t(`errors.${code}.title`);
}

/** GOV.UK's error summary: the form's own messages, then each field's, linked in `fields` order. */
export function ErrorSummary({ form, fields }: { form: FormState; fields: FieldMeta[] }) {
  const t = useTranslate();
  const summary = useRef<HTMLDivElement>(null);
  const focusedAttempt = useRef(form.attempts);
  const linked = new Set(fields.map((field) => field.name));
  const others = Object.entries(form.errors).filter(
    ([name, list]) => !linked.has(name) && list?.length,
  );
  const invalid = fields.filter((field) => field.errors?.length);
  useEffect(() => {
    if (others.length + invalid.length === 0 || focusedAttempt.current === form.attempts) return;
    focusedAttempt.current = form.attempts;
    summary.current?.focus();
  });
  if (others.length + invalid.length === 0) return null;
  const own = (form.errors[""] ?? []).map((text, index) => <li key={index}>{text}</li>);
  const items = [
    <Fragment key="">{own}</Fragment>,
    ...invalid.map(({ id, name, errors }) => (
      <li key={name}>
        <a href={`#${id}`} onClick={(event) => focusField(event, id)}>
          {joined(errors!)}
        </a>
      </li>
    )),
    ...others.filter(([name]) => name).map(([name, list]) => <li key={name}>{joined(list!)}</li>),
  ];
  const title = getRefusalTitle(t, form.status);
  return <Alert box={summary} id={`${form.id}-error-summary`} title={title} items={items} />;
}

/**
 * What a post did, said once where the page puts it (above its forms): a write done and staying on
 * the page, or a refusal for a form that is no longer on the page (a row gone meanwhile).
 */
export function PageMessage() {
  const reply = useReply();
  const t = useTranslate();
  const box = useRef<HTMLDivElement>(null);
  const focused = useRef<FormReply>();
  // Once per reply, when shown: a refusal is shown here only once its form has left the page.
  useEffect(() => {
    if (!reply || focused.current === reply || !box.current?.getClientRects().length) return;
    focused.current = reply;
    box.current.focus();
  });
  if (!reply) return null;
  if (reply.status < 400) {
    return (
      <p role="status" className="flash">
        {reply.message}
      </p>
    );
  }
  const messages = Object.values(reply.errors).flatMap(
    (list) => list?.map(say(t, reply.lang)) ?? [],
  );
  const items = (messages.length ? messages : [t("errors.NOT_CHANGED.message")]).map(
    (text, index) => <li key={index}>{text}</li>,
  );
  const title = getRefusalTitle(t, reply.status);
  // Hidden until the styles show it: never a second copy of what the form that posted shows.
  return (
    <Alert
      box={box}
      id="page-message"
      title={title}
      items={items}
      className="page-refusal"
      hidden
    />
  );
}

type AlertProps = {
  box: RefObject<HTMLDivElement>;
  id: string;
  title: string;
  items: ReactNode[];
  className?: string;
  hidden?: boolean;
};

function Alert({ box, id, title, items, className = "", hidden }: AlertProps) {
  return (
    <div
      ref={box}
      hidden={hidden}
      role="alert"
      className={`error-summary ${className}`.trim()}
      tabIndex={-1}
      aria-labelledby={`${id}-title`}
      // eslint-disable-next-line jsx-a11y/no-autofocus -- GOV.UK: a page with errors opens on them
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
