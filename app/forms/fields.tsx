import type { ReactNode } from "react";
import { getAriaProps, getInitialString, type FieldMeta } from "./field-meta";

type Option = { value: string; label: string };

type FieldProps = {
  meta: FieldMeta;
  label: string;
  hint?: ReactNode;
  /** Set on the first invalid field: the page, even server-rendered, opens with focus on it. */
  isFirstInvalid?: boolean;
};

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

export function TextField({
  meta,
  label,
  hint,
  isFirstInvalid,
  type = "text",
  autoComplete,
}: FieldProps & { type?: "text" | "email" | "tel" | "url" | "search"; autoComplete?: string }) {
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      {hint ? <FieldHint id={meta.descriptionId}>{hint}</FieldHint> : null}
      <input
        key={meta.key}
        id={meta.id}
        name={meta.name}
        type={type}
        autoComplete={autoComplete}
        defaultValue={getInitialString(meta)}
        // eslint-disable-next-line jsx-a11y/no-autofocus -- focus moves to the first invalid field only
        autoFocus={isFirstInvalid}
        {...getAriaProps(meta, hint)}
      />
      <FieldError meta={meta} />
    </div>
  );
}

export function SelectField({
  meta,
  label,
  hint,
  isFirstInvalid,
  options,
  placeholder,
}: FieldProps & { options: readonly Option[]; placeholder?: string }) {
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      {hint ? <FieldHint id={meta.descriptionId}>{hint}</FieldHint> : null}
      <select
        key={meta.key}
        id={meta.id}
        name={meta.name}
        defaultValue={getInitialString(meta) ?? ""}
        // eslint-disable-next-line jsx-a11y/no-autofocus -- focus moves to the first invalid field only
        autoFocus={isFirstInvalid}
        {...getAriaProps(meta, hint)}
      >
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <FieldError meta={meta} />
    </div>
  );
}

export function RadioGroupField({
  meta,
  label,
  hint,
  isFirstInvalid,
  options,
}: FieldProps & { options: readonly Option[] }) {
  const checked = getInitialString(meta);
  return (
    <fieldset id={meta.id} className="field" key={meta.key}>
      <legend>{label}</legend>
      {hint ? <FieldHint id={meta.descriptionId}>{hint}</FieldHint> : null}
      {options.map((option, index) => (
        <div className="radio" key={option.value}>
          <input
            id={`${meta.id}-${option.value}`}
            type="radio"
            name={meta.name}
            value={option.value}
            defaultChecked={checked === option.value}
            // eslint-disable-next-line jsx-a11y/no-autofocus -- focus moves to the first invalid field only
            autoFocus={isFirstInvalid && index === 0}
            {...getAriaProps(meta, hint)}
          />
          <label htmlFor={`${meta.id}-${option.value}`}>{option.label}</label>
        </div>
      ))}
      <FieldError meta={meta} />
    </fieldset>
  );
}
