import { useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";

/**
 * A form's submit button. With JavaScript, while the page's submission is on its way it says so
 * (`pendingLabel`) and ignores further clicks, so a second click cannot post twice.
 */
export function SubmitButton({
  children,
  pendingLabel,
  name,
  value,
}: {
  children: ReactNode;
  pendingLabel: string;
  name?: string;
  value?: string;
}) {
  const navigation = useNavigation();
  const pending = navigation.state !== "idle" && navigation.formData !== undefined;
  return (
    <button
      type="submit"
      name={name}
      value={value}
      aria-disabled={pending || undefined}
      onClick={(event) => {
        if (pending) event.preventDefault();
      }}
    >
      {pending ? pendingLabel : children}
    </button>
  );
}
