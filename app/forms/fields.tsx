import { useNavigation } from "@remix-run/react";
import {
  createContext,
  useContext,
  useEffect,
  useRef,
  type ComponentProps,
  type ReactNode,
} from "react";
import { useTranslate } from "~/i18n/translate";
import { toLocalDateTime } from "./date-time";
import { FORM_ID_FIELD, INTENT_FIELD } from "./parse";

/** A field as `useValidatedForm` describes it to a view: a shape only, no validation code. */
export type FieldMeta = { id: string; name: string; errors?: ReactNode[]; defaultValue?: string };

/** Messages one after the other, as a paragraph says them. */
export const joined = (messages: ReactNode[]) =>
  messages.flatMap((said, i) => (i ? [" ", said] : [said]));

type FieldProps = { meta: FieldMeta; label: string; hint?: ReactNode };
/** `lang` when the label is in another language than the page (a language's own name). */
type Option = { value: string; label: string; lang?: string };

function controlProps({ id, name, errors }: FieldMeta, hint: ReactNode) {
  const describedBy =
    `${hint ? `${id}-description` : ""} ${errors?.length ? `${id}-error` : ""}`.trim();
  return {
    id,
    name,
    "aria-invalid": errors?.length ? true : undefined,
    "aria-describedby": describedBy || undefined,
  };
}

// The hint before the control and the error after it, as GOV.UK forms have them.
function Described({ meta, hint, children }: FieldProps & { children: ReactNode }) {
  const error = meta.errors?.length ? joined(meta.errors) : null;
  return (
    <>
      {hint ? (
        <p id={`${meta.id}-description`} className="field-hint">
          {hint}
        </p>
      ) : null}
      {children}
      {error ? (
        <p id={`${meta.id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </>
  );
}

function Field({ children, ...field }: FieldProps & { children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={field.meta.id}>{field.label}</label>
      <Described {...field}>{children}</Described>
    </div>
  );
}

/** For whole numbers use `inputMode="numeric"`, not `type="number"`. */
export function TextField({ meta, label, hint, ...input }: FieldProps & ComponentProps<"input">) {
  return (
    <Field meta={meta} label={label} hint={hint}>
      <input {...input} defaultValue={meta.defaultValue} {...controlProps(meta, hint)} />
    </Field>
  );
}

/** A date and time on the clocks of the TIME_ZONE setting; the action reads it with `toInstant`. */
export function DateTimeField({ meta, label, hint }: FieldProps) {
  const { timeZone } = useTranslate();
  const value = meta.defaultValue && toLocalDateTime(meta.defaultValue, timeZone);
  return (
    <Field meta={meta} label={label} hint={hint}>
      <input type="datetime-local" defaultValue={value} {...controlProps(meta, hint)} />
    </Field>
  );
}

export function TextareaField({ meta, label, hint, rows = 5 }: FieldProps & { rows?: number }) {
  return (
    <Field meta={meta} label={label} hint={hint}>
      <textarea rows={rows} defaultValue={meta.defaultValue} {...controlProps(meta, hint)} />
    </Field>
  );
}

export function SelectField({
  options,
  placeholder,
  ...field
}: FieldProps & { options: Option[]; placeholder?: string }) {
  const select = useRef<HTMLSelectElement>(null);
  const value = field.meta.defaultValue ?? "";
  // React sets a select's default only when it first appears: a form reset after a post that
  // stayed on the page must find the new one, as inputs' defaults are.
  useEffect(() => {
    for (const option of select.current?.options ?? [])
      option.defaultSelected = option.value === value;
  }, [value]);
  return (
    <Field {...field}>
      <select ref={select} defaultValue={value} {...controlProps(field.meta, field.hint)}>
        {placeholder === undefined ? null : <option value="">{placeholder}</option>}
        {options.map(({ value, label }) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function CheckboxField(field: FieldProps) {
  return (
    <div className="field">
      <Described {...field}>
        <Choice field={field} type="checkbox" option={{ value: "on", label: field.label }} first />
      </Described>
    </div>
  );
}

export function RadioGroupField({ options, ...field }: FieldProps & { options: Option[] }) {
  return (
    <Fieldset {...field}>
      {options.map((option, index) => (
        <Choice key={option.value} field={field} type="radio" option={option} first={!index} />
      ))}
    </Fieldset>
  );
}

/** Controls that go together under `label` (a row's); its own messages (`meta`) show in it. */
export const FieldsetField = (group: FieldProps & { children: ReactNode }) => (
  <Fieldset {...group} id={group.meta.id} />
);

function Fieldset({ id, children, ...field }: FieldProps & { id?: string; children: ReactNode }) {
  const describedBy = id && controlProps(field.meta, field.hint)["aria-describedby"];
  return (
    <fieldset
      className="field"
      id={id}
      tabIndex={id ? -1 : undefined}
      aria-describedby={describedBy}
    >
      <legend>{field.label}</legend>
      <Described {...field}>{children}</Described>
    </fieldset>
  );
}

// The first choice carries the field's id, which the error summary links to.
function Choice({
  field,
  type,
  option,
  first,
}: {
  field: FieldProps;
  type: string;
  option: Option;
  first: boolean;
}) {
  const id = first ? field.meta.id : `${field.meta.id}-${option.value}`;
  const control = {
    type,
    value: option.value,
    defaultChecked: field.meta.defaultValue === option.value,
  };
  return (
    <div className="choice">
      <input {...control} {...controlProps(field.meta, field.hint)} id={id} />
      <label htmlFor={id} lang={option.lang}>
        {option.label}
      </label>
    </div>
  );
}

/** The id of the form a submit button is in (`ValidatedForm` provides it). */
export const FormIdContext = createContext<string | undefined>(undefined);

type SubmitButtonProps = { children: ReactNode; pendingLabel: string; intent?: string };

/** Says `pendingLabel` and ignores clicks while the post it made is on its way. */
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

type ConfirmButtonProps = SubmitButtonProps & { question: ReactNode; confirmLabel: ReactNode };

/**
 * A write that asks first, in place: `children` opens `question` and the button that posts
 * (a `<details>`, so it asks without JavaScript too, and nothing else on the page is lost).
 */
export function ConfirmButton({ children, question, confirmLabel, ...button }: ConfirmButtonProps) {
  return (
    <details className="confirm">
      <summary className="button">{children}</summary>
      <p>{question}</p>
      <SubmitButton {...button}>{confirmLabel}</SubmitButton>
    </details>
  );
}
