import { useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { INTENT_FIELD } from "./form-reply";

/**
 * A form's submit button. With JavaScript, while the submission it made is on its way it says so
 * (`pendingLabel`) and ignores further clicks, so a second click cannot post twice; the page's
 * other buttons stay as they are. `intent` names the action it posts on a page with several.
 */
export function SubmitButton({
  children,
  pendingLabel,
  intent,
}: {
  children: ReactNode;
  pendingLabel: string;
  intent?: string;
}) {
  const navigation = useNavigation();
  const button = useRef<HTMLButtonElement>(null);
  const [usedLast, setUsedLast] = useState(false);
  useEffect(() => {
    // The latest submission anywhere on the page says which button is pending.
    const onSubmit = (event: SubmitEvent) => setUsedLast(event.submitter === button.current);
    document.addEventListener("submit", onSubmit);
    return () => document.removeEventListener("submit", onSubmit);
  }, []);
  const pending = usedLast && navigation.state !== "idle" && navigation.formData !== undefined;
  return (
    <button
      ref={button}
      type="submit"
      name={intent ? INTENT_FIELD : undefined}
      value={intent}
      aria-disabled={pending || undefined}
      onClick={(event) => {
        if (pending) event.preventDefault();
      }}
    >
      {pending ? pendingLabel : children}
    </button>
  );
}
