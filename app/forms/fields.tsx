import type { ReactNode } from "react";
import { getControlProps, getInitialString, type FieldMeta } from "./field-meta";

type Option = { value: string; label: string };

type FieldProps = { meta: FieldMeta; label: string; hint?: ReactNode };

function FieldHint({ meta, hint }: { meta: FieldMeta; hint?: ReactNode }) {
  if (!hint) return null;
  return (
    <p id={meta.descriptionId} className="field-hint">
      {hint}
    </p>
  );
}

function FieldError({ meta }: { meta: FieldMeta }) {
  if (!meta.errors?.length) return null;
  return (
    <p id={meta.errorId} className="field-error">
      {meta.errors.join(" ")}
    </p>
  );
}

/** A label, its hint, the control and its error, in the order GOV.UK forms use. */
function Field({ meta, label, hint, children }: FieldProps & { children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <FieldHint meta={meta} hint={hint} />
      {children}
      <FieldError meta={meta} />
    </div>
  );
}

/** A one-line text input; for whole numbers use `inputMode="numeric"` rather than `type="number"`. */
export function TextField({
  type = "text",
  inputMode,
  autoComplete,
  ...props
}: FieldProps & {
  type?: "text" | "email" | "tel" | "url" | "search";
  inputMode?: "numeric" | "decimal";
  autoComplete?: string;
}) {
  const { meta, hint } = props;
  return (
    <Field {...props}>
      <input
        key={meta.key}
        type={type}
        inputMode={inputMode}
        autoComplete={autoComplete}
        defaultValue={getInitialString(meta)}
        {...getControlProps(meta, hint)}
      />
    </Field>
  );
}

export function TextareaField({ rows = 5, ...props }: FieldProps & { rows?: number }) {
  const { meta, hint } = props;
  return (
    <Field {...props}>
      <textarea
        key={meta.key}
        rows={rows}
        defaultValue={getInitialString(meta)}
        {...getControlProps(meta, hint)}
      />
    </Field>
  );
}

export function SelectField({
  options,
  placeholder,
  ...props
}: FieldProps & { options: readonly Option[]; placeholder?: string }) {
  const { meta, hint } = props;
  return (
    <Field {...props}>
      <select key={meta.key} defaultValue={getInitialString(meta) ?? ""} {...getControlProps(meta, hint)}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** One checkbox for a yes/no answer: it posts "on" when checked and nothing when not. */
export function CheckboxField({ meta, label, hint }: FieldProps) {
  return (
    <div className="field">
      <div className="choice">
        <input
          key={meta.key}
          type="checkbox"
          defaultChecked={meta.initialValue === "on"}
          {...getControlProps(meta, hint)}
        />
        <label htmlFor={meta.id}>{label}</label>
      </div>
      <FieldHint meta={meta} hint={hint} />
      <FieldError meta={meta} />
    </div>
  );
}

/** Radio buttons for one of a few choices; the first carries the field's id, for the summary's link. */
export function RadioGroupField({ meta, label, hint, options }: FieldProps & { options: readonly Option[] }) {
  const checked = getInitialString(meta);
  return (
    <fieldset className="field" key={meta.key}>
      <legend>{label}</legend>
      <FieldHint meta={meta} hint={hint} />
      {options.map((option, index) => {
        const id = index === 0 ? meta.id : `${meta.id}-${option.value}`;
        return (
          <div className="choice" key={option.value}>
            <input
              type="radio"
              value={option.value}
              defaultChecked={checked === option.value}
              {...getControlProps(meta, hint)}
              id={id}
            />
            <label htmlFor={id}>{option.label}</label>
          </div>
        );
      })}
      <FieldError meta={meta} />
    </fieldset>
  );
}
