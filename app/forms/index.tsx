import { Form, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import type { $ZodType, input } from "zod/v4/core";
import type { FieldMeta } from "./fields";
import { FormIdContext, isAboutPage, useReply } from "./messages";
import {
  checkPayload,
  FORM_ID_FIELD,
  getValue,
  INTENT_FIELD,
  itemErrors,
  splitIntent,
  toPayload,
} from "./parse";
import type { FormErrors, FormReply } from "./parse";

export * from "./fields";
export { ErrorSummary, PageMessage, SubmitButton } from "./messages";

type Schemas = $ZodType | Record<string, $ZodType>;
type Values<S> = S extends $ZodType ? input<S> : S extends Record<string, infer T> ? input<T> : never;
type Names<T> = T extends unknown ? keyof T & string : never;
type FormOptions<S> = { id: string; schema?: S; defaultValue?: object };
type Check = { reply?: FormReply; errors: FormErrors; attempts: number; resets: number; sent?: string };
export type FormState = ReturnType<typeof useValidatedForm>[0];

/**
 * A form checked in the browser with its action's schema (one per intent where its buttons name
 * several): errors show after a submit attempt, then change as the visitor types.
 */
export function useValidatedForm<S extends Schemas>({ id, schema, defaultValue }: FormOptions<S>) {
  const answer = useReply(id);
  const reply = answer && !isAboutPage(answer) ? answer : undefined;
  const { state: navigation } = useNavigation();
  const fresh: Check = { reply, errors: reply?.errors ?? {}, attempts: +!!reply, resets: 0 };
  const [state, setState] = useState(fresh);
  if (state.reply !== reply)
    setState({ ...state, reply, errors: reply?.errors ?? {}, attempts: state.attempts + 1 });
  if (state.sent === "sent" && navigation === "submitting") setState({ ...state, sent: "posting" });
  if (state.sent === "posting" && navigation === "idle") {
    // Done and back on this page: the form shows the page's data again, as a reload would.
    const done = !answer || answer.status < 400;
    setState(done ? { errors: {}, attempts: 0, resets: state.resets + 1 } : { ...state, sent: undefined });
  }
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
    answer && answer.status < 400 ? { ...defaultValue, ...answer.values } : (answer?.values ?? defaultValue);
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
  const form = {
    id,
    errors: state.errors,
    attempts: state.attempts,
    /** A field the schema does not name, such as one row's: `form.field(`${row.id}.quantity`)`. */
    field,
    onSubmit(event: FormEvent<HTMLFormElement>) {
      submitter.current = (event.nativeEvent as SubmitEvent).submitter;
      const errors = check(event.currentTarget);
      const sent = Object.keys(errors).length ? undefined : "sent";
      if (!sent) event.preventDefault();
      setState((current) => ({ ...current, errors, attempts: current.attempts + 1, sent }));
    },
    onInput(event: FormEvent<HTMLFormElement>) {
      if (state.attempts) setState({ ...state, errors: check(event.currentTarget) });
    },
  };
  const fields = new Proxy({} as Record<Names<Values<S>>, FieldMeta>, {
    get: (_, name: string) => field(name),
  });
  return [form, fields] as const;
}

type ValidatedFormProps = { form: FormState; action?: string; className?: string; children: ReactNode };

/** A `<Form method="post">` that posts its id, so that the reply comes back to it, not to the page's others. */
export function ValidatedForm({ form: { id, onSubmit, onInput }, children, ...props }: ValidatedFormProps) {
  return (
    <Form method="post" id={id} onSubmit={onSubmit} onInput={onInput} noValidate {...props}>
      <input type="hidden" name={FORM_ID_FIELD} value={id} />
      <FormIdContext.Provider value={id}>{children}</FormIdContext.Provider>
    </Form>
  );
}
