import { useForm, type SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Form, useActionData } from "@remix-run/react";
import type { z } from "zod";
import { ErrorPage, GeneralErrorBoundary } from "~/components/error-boundary";
import { ErrorSummary } from "~/forms/error-summary";
import { RadioGroupField } from "~/forms/fields";
import { parseSubmission } from "~/forms/parse-submission.server";
import { APP_NAME } from "~/lib/constants";
import { getError } from "~/lib/errors";
import { serializeFlash } from "~/lib/cookies.server";
import type { RouteHandle } from "~/lib/route-handle";
import { getSafeRedirect } from "~/lib/safe-redirect";
import { THEME_ACTION_PATH, THEME_LABELS, THEMES } from "./theme";
import { serializeTheme, ThemeFormSchema } from "./theme.server";

const THEME_OPTIONS = THEMES.map((value) => ({ value, label: THEME_LABELS[value] }));

// Reached only by a plain form post or by typing the address: a page that needs no script.
export const handle: RouteHandle = { hydrate: false };

// The address only receives the theme form. A GET answers 405; the status is returned, not
// thrown, because Remix also runs this loader to render a rejected post, whose 400 then wins.
export function loader() {
  return data(null, { status: getError("METHOD_NOT_ALLOWED").status, headers: { Allow: "POST" } });
}

export async function action({ request }: ActionFunctionArgs) {
  const submission = await parseSubmission(request, ThemeFormSchema);
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: getError("VALIDATION_FAILED").status });
  }
  const { theme, redirectTo } = submission.value;
  const headers = new Headers();
  headers.append("Set-Cookie", await serializeTheme(theme));
  headers.append("Set-Cookie", await serializeFlash(`Theme set to ${THEME_LABELS[theme]}.`));
  return redirect(getSafeRedirect(redirectTo), { status: 303, headers });
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

/** A rejected post shows the form with its error; a GET shows the 405 page. */
export default function ThemePreferencePage() {
  const actionData = useActionData<typeof action>();
  if (!actionData) return <ErrorPage status={getError("METHOD_NOT_ALLOWED").status} />;
  return <ThemeForm lastResult={actionData.result} />;
}

function ThemeForm({ lastResult }: { lastResult: SubmissionResult<string[]> }) {
  const [form, fields] = useForm<z.input<typeof ThemeFormSchema>>({ id: "theme-form", lastResult });
  const redirectTo = fields.redirectTo.initialValue;
  return (
    <>
      <h1>Theme</h1>
      <ErrorSummary form={form} fields={[fields.theme]} />
      <Form method="post" action={THEME_ACTION_PATH} id={form.id} className="form">
        <input type="hidden" name="redirectTo" value={typeof redirectTo === "string" ? redirectTo : "/"} />
        <RadioGroupField
          meta={fields.theme}
          label="Colour theme"
          hint="System follows your device's setting."
          options={THEME_OPTIONS}
        />
        <button type="submit">Save theme</button>
      </Form>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: `Theme · ${APP_NAME}` }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
