import type { ReactNode } from "react";
import { getAriaProps, getInitialString, type FieldMeta } from "./field-meta";

type Option = { value: string; label: string };

type FieldProps = { meta: FieldMeta; label: string; hint?: ReactNode };

export function FieldHint({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className="field-hint">
      {children}
    </p>
  );
}

export function FieldError({ meta }: { meta: FieldMeta }) {
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
      {hint ? <FieldHint id={meta.descriptionId}>{hint}</FieldHint> : null}
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
        id={meta.id}
        name={meta.name}
        type={type}
        inputMode={inputMode}
        autoComplete={autoComplete}
        defaultValue={getInitialString(meta)}
        {...getAriaProps(meta, hint)}
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
        id={meta.id}
        name={meta.name}
        rows={rows}
        defaultValue={getInitialString(meta)}
        {...getAriaProps(meta, hint)}
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
      <select
        key={meta.key}
        id={meta.id}
        name={meta.name}
        defaultValue={getInitialString(meta) ?? ""}
        {...getAriaProps(meta, hint)}
      >
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
          id={meta.id}
          name={meta.name}
          type="checkbox"
          defaultChecked={meta.initialValue === "on"}
          {...getAriaProps(meta, hint)}
        />
        <label htmlFor={meta.id}>{label}</label>
      </div>
      {hint ? <FieldHint id={meta.descriptionId}>{hint}</FieldHint> : null}
      <FieldError meta={meta} />
    </div>
  );
}

/** Radio buttons for one of a few choices; the first one carries the field's id for the summary's link. */
export function RadioGroupField({ meta, label, hint, options }: FieldProps & { options: readonly Option[] }) {
  const checked = getInitialString(meta);
  return (
    <fieldset className="field" key={meta.key}>
      <legend>{label}</legend>
      {hint ? <FieldHint id={meta.descriptionId}>{hint}</FieldHint> : null}
      {options.map((option, index) => {
        const id = index === 0 ? meta.id : `${meta.id}-${option.value}`;
        return (
          <div className="choice" key={option.value}>
            <input
              id={id}
              type="radio"
              name={meta.name}
              value={option.value}
              defaultChecked={checked === option.value}
              {...getAriaProps(meta, hint)}
            />
            <label htmlFor={id}>{option.label}</label>
          </div>
        );
      })}
      <FieldError meta={meta} />
    </fieldset>
  );
}
