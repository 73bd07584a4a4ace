import type { ReactNode } from "react";

/**
 * What a field component needs from Conform's field metadata (`fields.name` of `useForm`).
 * Only the shape is shared, so these components add no validation code to a page.
 */
export type FieldMeta = {
  id: string;
  name: string;
  errorId: string;
  descriptionId: string;
  errors?: string[];
  /** The form's default value for the field, or what the visitor sent after a rejected post. */
  initialValue?: unknown;
  key?: string;
};

/** A control's name, id and the aria attributes that tie it to its hint and error. */
export function getControlProps(meta: FieldMeta, hint: ReactNode) {
  const describedBy = [hint ? meta.descriptionId : null, meta.errors?.length ? meta.errorId : null]
    .filter(Boolean)
    .join(" ");
  return {
    id: meta.id,
    name: meta.name,
    "aria-invalid": meta.errors?.length ? true : undefined,
    "aria-describedby": describedBy || undefined,
  };
}

export function getInitialString(meta: FieldMeta) {
  return typeof meta.initialValue === "string" ? meta.initialValue : undefined;
}
