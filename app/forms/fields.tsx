import type { ReactNode } from "react";

/** What a field component needs from `useValidatedForm`'s `fields`: a shape only, no validation code. */
export type FieldMeta = { id: string; name: string; errors?: string[]; defaultValue?: string };

type FieldProps = { meta: FieldMeta; label: string; hint?: ReactNode };
type Option = { value: string; label: string };

function getControlProps({ meta, hint }: FieldProps) {
  const describedBy = [hint ? `${meta.id}-description` : "", meta.errors?.length ? `${meta.id}-error` : ""];
  return {
    id: meta.id,
    name: meta.name,
    "aria-invalid": meta.errors?.length ? true : undefined,
    "aria-describedby": describedBy.join(" ").trim() || undefined,
  };
}

function FieldHint({ meta, hint }: FieldProps) {
  return hint ? (
    <p id={`${meta.id}-description`} className="field-hint">
      {hint}
    </p>
  ) : null;
}

function FieldError({ meta }: FieldProps) {
  return meta.errors?.length ? (
    <p id={`${meta.id}-error`} className="field-error">
      {meta.errors.join(" ")}
    </p>
  ) : null;
}

// A label, its hint, the control and its error, in the order GOV.UK forms use.
function Field({ children, ...field }: FieldProps & { children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={field.meta.id}>{field.label}</label>
      <FieldHint {...field} />
      {children}
      <FieldError {...field} />
    </div>
  );
}

type TextFieldProps = FieldProps & {
  type?: "text" | "email" | "tel" | "url" | "search";
  inputMode?: "numeric" | "decimal";
  autoComplete?: string;
};

/** For whole numbers use `inputMode="numeric"`, not `type="number"`. */
export function TextField({ type = "text", inputMode, autoComplete, ...field }: TextFieldProps) {
  const control = { type, inputMode, autoComplete, defaultValue: field.meta.defaultValue };
  return (
    <Field {...field}>
      <input {...control} {...getControlProps(field)} />
    </Field>
  );
}

export function TextareaField({ rows = 5, ...field }: FieldProps & { rows?: number }) {
  return (
    <Field {...field}>
      <textarea rows={rows} defaultValue={field.meta.defaultValue} {...getControlProps(field)} />
    </Field>
  );
}

export function SelectField({
  options,
  placeholder,
  ...field
}: FieldProps & { options: readonly Option[]; placeholder?: string }) {
  return (
    <Field {...field}>
      <select defaultValue={field.meta.defaultValue ?? ""} {...getControlProps(field)}>
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

/** Posts "on" when checked and nothing when not. */
export function CheckboxField(field: FieldProps) {
  return (
    <div className="field">
      <Choice field={field} type="checkbox" option={{ value: "on", label: field.label }} first />
      <FieldHint {...field} />
      <FieldError {...field} />
    </div>
  );
}

/** The first radio button carries the field's id, for the error summary's link. */
export function RadioGroupField({ options, ...field }: FieldProps & { options: readonly Option[] }) {
  return (
    <fieldset className="field">
      <legend>{field.label}</legend>
      <FieldHint {...field} />
      {options.map((option, index) => (
        <Choice key={option.value} field={field} type="radio" option={option} first={index === 0} />
      ))}
      <FieldError {...field} />
    </fieldset>
  );
}

type ChoiceProps = { field: FieldProps; type: "checkbox" | "radio"; option: Option; first: boolean };

function Choice({ field: { meta, hint }, type, option, first }: ChoiceProps) {
  const id = first ? meta.id : `${meta.id}-${option.value}`;
  const control = { type, value: option.value, defaultChecked: meta.defaultValue === option.value };
  return (
    <div className="choice">
      <input {...control} {...getControlProps({ meta, hint, label: option.label })} id={id} />
      <label htmlFor={id}>{option.label}</label>
    </div>
  );
}
