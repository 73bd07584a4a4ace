import { INTENT } from "@conform-to/dom";
import { useForm, type DefaultValue } from "@conform-to/react";
import { useActionData, useNavigation } from "@remix-run/react";
import { useEffect, useRef } from "react";
import type { $ZodType } from "zod/v4/core";
import { isFormReply } from "./form-reply";
import { parseWithSchema } from "./parse-with-schema";

/**
 * A Conform form that validates in the browser with the same schema and parse the action uses.
 * Write its schema with Zod Mini (`import * as z from "zod/mini"`): it ships to the browser.
 *
 * As GOV.UK forms do, nothing is checked while the visitor fills the form in: errors appear
 * after a submit attempt (leaving a field never moves the submit button under the pointer), and
 * from then on each field is checked again as the visitor types. `defaultValue` fills the form
 * (an edit form opens with the saved values); after a rejected post it shows what was sent.
 *
 * The form shows the action's reply (`submitForm`, `submitIntent`) for its own `intent` only, and
 * once its post succeeds it starts empty again, as a page reloaded without JavaScript does.
 */
export function useValidatedForm<Input extends Record<string, unknown>, Output>(options: {
  id: string;
  schema: $ZodType<Output, Input>;
  /** On a page with several actions, the intent its submit button posts (`SubmitButton intent`). */
  intent?: string;
  defaultValue?: DefaultValue<Input>;
}) {
  const { id, schema, intent = null, defaultValue } = options;
  const actionData = useActionData();
  const reply = isFormReply(actionData) && actionData.intent === intent ? actionData : undefined;
  useResetAfterSuccess(id, reply !== undefined);
  return useForm<Input, Output>({
    id,
    lastResult: reply?.result,
    defaultValue,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithSchema(formData, schema),
  });
}

/**
 * With JavaScript the page stays mounted through a post that redirects back to it, so the form
 * would keep what was sent: it is reset once a submission it made ends without a reply.
 */
function useResetAfterSuccess(id: string, replied: boolean) {
  const navigation = useNavigation();
  const sent = useRef<"no" | "submitted" | "on its way">("no");
  useEffect(() => {
    const onSubmit = (event: SubmitEvent) => {
      // Conform checks a field as the visitor types by submitting with its own button: not a post.
      if (event.submitter?.getAttribute("name") === INTENT) return;
      sent.current = event.target instanceof HTMLFormElement && event.target.id === id ? "submitted" : "no";
    };
    document.addEventListener("submit", onSubmit);
    return () => document.removeEventListener("submit", onSubmit);
  }, [id]);
  useEffect(() => {
    if (navigation.state === "submitting" && sent.current === "submitted") sent.current = "on its way";
    if (navigation.state !== "idle" || sent.current !== "on its way") return;
    sent.current = "no";
    const form = document.getElementById(id);
    if (!replied && form instanceof HTMLFormElement) form.reset();
  }, [navigation.state, id, replied]);
}
