import { Form, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import type { $ZodType, input } from "zod/v4/core";
import type { FieldMeta } from "./fields";
import { useReply } from "./messages";
import {
  checkPayload,
  FORM_ID_FIELD,
  getValue,
  INTENT_FIELD,
  splitIntent,
  toPayload,
  type FormErrors,
  type FormReply,
} from "./parse";

export * from "./fields";
export { ErrorSummary, PageMessage, SubmitButton } from "./messages";

type Schemas = $ZodType | Record<string, $ZodType>;
type Values<S> = S extends $ZodType ? input<S> : S extends Record<string, infer T> ? input<T> : never;
type Names<T> = T extends unknown ? keyof T & string : never;
export type FormState = ReturnType<typeof useValidatedForm>[0];

/**
 * A form checked in the browser by its action's schema (one per intent where its buttons name
 * several): errors show after a submit attempt, then change as the visitor types.
 */
export function useValidatedForm<S extends Schemas>({ id, schema, defaultValue }: FormOptions<S>) {
  const answer = useReply(id);
  const reply = answer && answer.status >= 400 && !answer.page ? answer : undefined;
  const navigation = useNavigation();
  const [state, setState] = useState<FormCheck>({
    reply,
    errors: reply?.errors ?? {},
    attempts: reply ? 1 : 0,
    resets: 0,
  });
  if (state.reply !== reply)
    setState({ ...state, reply, errors: reply?.errors ?? {}, attempts: state.attempts + 1 });
  if (state.sent === "sent" && navigation.state === "submitting") setState({ ...state, sent: "posting" });
  if (state.sent === "posting" && navigation.state === "idle") {
    // Done, and the page came back: the form shows its data again, as a reload would.
    const done = !answer || answer.status < 400;
    setState(
      done ? { reply, errors: {}, attempts: 0, resets: state.resets + 1 } : { ...state, sent: undefined },
    );
  }
  useEffect(() => {
    if (state.resets) (document.getElementById(id) as HTMLFormElement | null)?.reset();
  }, [state.resets, id]);
  const submitter = useRef<HTMLElement | null>(null);

  const check = (form: HTMLFormElement): FormErrors => {
    const button = submitter.current?.isConnected ? submitter.current : null;
    const intent = button?.getAttribute("name") === INTENT_FIELD ? button.getAttribute("value") : null;
    const [name, item] = splitIntent(intent ?? "");
    const rules =
      !schema || "_zod" in schema ? schema : Object.hasOwn(schema, name) ? schema[name] : undefined;
    const payload = toPayload(new FormData(form, button));
    const { errors = {} } =
      rules && item !== null ? checkPayload(rules as $ZodType, item ? payload[item] : payload) : {};
    return Object.fromEntries(
      Object.entries(errors).map(([field, list]) => [field && item ? `${item}.${field}` : field, list]),
    );
  };
  const form = {
    id,
    errors: state.errors,
    attempts: state.attempts,
    /** A field the schema does not name: one row's, `form.field(`${row.id}.quantity`)`. */
    field: (name: string) => field(name),
    onSubmit(event: FormEvent<HTMLFormElement>) {
      submitter.current = (event.nativeEvent as SubmitEvent).submitter;
      const errors = check(event.currentTarget);
      const refused = Object.keys(errors).length > 0;
      if (refused) event.preventDefault();
      setState((current) => ({
        ...current,
        errors,
        attempts: current.attempts + 1,
        sent: refused ? undefined : "sent",
      }));
    },
    onInput(event: FormEvent<HTMLFormElement>) {
      if (state.attempts > 0) setState({ ...state, errors: check(event.currentTarget) });
    },
  };
  const values = !answer
    ? defaultValue
    : answer.status < 400
      ? { ...defaultValue, ...answer.values }
      : answer.values;
  const field = (name: string): FieldMeta => {
    const value = getValue(values, name);
    const text = typeof value === "number" ? String(value) : value === true ? "on" : value;
    return {
      id: `${id}-${name}`,
      name,
      errors: state.errors[name],
      defaultValue: typeof text === "string" ? text : undefined,
    };
  };
  const fields = new Proxy({} as Record<Names<Values<S>>, FieldMeta>, {
    get: (_, name: string) => field(name),
  });
  return [form, fields] as const;
}

type FormCheck = {
  reply?: FormReply;
  errors: FormErrors;
  attempts: number;
  resets: number;
  sent?: "sent" | "posting";
};

type FormOptions<S> = { id: string; schema?: S; defaultValue?: object };

type ValidatedFormProps = { form: FormState; action?: string; className?: string; children: ReactNode };

/** A `<Form method="post">` that posts its id, so the reply comes back to it and not to the page's others. */
export function ValidatedForm({ form, action, className, children }: ValidatedFormProps) {
  const { id, onSubmit, onInput } = form;
  return (
    <Form
      method="post"
      action={action}
      id={id}
      onSubmit={onSubmit}
      onInput={onInput}
      noValidate
      className={className}
    >
      <input type="hidden" name={FORM_ID_FIELD} value={id} />
      {children}
    </Form>
  );
}
