import { getError } from "~/lib/errors";
import type { FieldMeta } from "./field-meta";

/** Lists every field error, each linking to its field; announced as soon as it appears. */
export function ErrorSummary({ fields, formErrors }: { fields: FieldMeta[]; formErrors?: string[] }) {
  const invalid = fields.filter((field) => field.errors?.length);
  if (!invalid.length && !formErrors?.length) return null;
  return (
    <div role="alert" className="error-summary">
      <h2>{getError("VALIDATION_FAILED").title}</h2>
      <ul>
        {formErrors?.map((message) => (
          <li key={message}>{message}</li>
        ))}
        {invalid.map((field) => (
          <li key={field.name}>
            <a href={`#${field.id}`}>{field.errors!.join(" ")}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}
