// What a view needs from the form toolkit, in one import; actions and loaders use index.server.ts.
export { ErrorSummary } from "./error-summary";
export type { FieldMeta } from "./field-meta";
export { CheckboxField, RadioGroupField, SelectField, TextareaField, TextField } from "./fields";
export { SubmitButton } from "./submit-button";
export { useValidatedForm } from "./use-validated-form";
