import type { ActionFunctionArgs, HeadersFunction, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { useActionData } from "@remix-run/react";
import { ErrorPage, GeneralErrorBoundary } from "~/components/error-boundary";
import { ErrorSummary, useValidatedForm, ValidatedForm } from "~/forms";
import { RadioGroupField, SubmitButton } from "~/forms/fields";
import { submitForm } from "~/forms/index.server";
import { APP_NAME } from "~/lib/constants";
import { getError } from "~/lib/errors";
import type { RouteHandle } from "~/lib/route-handle";
import { getSafeRedirect } from "~/lib/safe-redirect";
import { THEME_ACTION_PATH, THEME_LABELS, THEMES } from "./theme";
import { serializeTheme, ThemeFormSchema } from "./theme.server";

const THEME_OPTIONS = THEMES.map((value) => ({ value, label: THEME_LABELS[value] }));

// Reached only by a plain form post or by typing the address: a page that needs no script.
export const handle: RouteHandle = { hydrate: false };

// A GET answers 405; returned, not thrown: Remix also runs this loader to render a refused post.
export function loader() {
  return data(null, { status: getError("METHOD_NOT_ALLOWED").status, headers: { Allow: "POST" } });
}

export async function action({ request }: ActionFunctionArgs) {
  return submitForm(request, ThemeFormSchema, async ({ theme, redirectTo }) => ({
    redirectTo: getSafeRedirect(redirectTo),
    flash: `Theme set to ${THEME_LABELS[theme]}.`,
    headers: { "Set-Cookie": await serializeTheme(theme) },
  }));
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

export default function ThemePreferencePage() {
  const reply = useActionData<typeof action>();
  const [form, fields] = useValidatedForm<typeof ThemeFormSchema>({ id: "theme-form" });
  if (!reply) return <ErrorPage status={getError("METHOD_NOT_ALLOWED").status} />;
  return (
    <>
      <h1>Theme</h1>
      <ErrorSummary form={form} fields={[fields.theme]} />
      <ValidatedForm form={form} action={THEME_ACTION_PATH} className="form">
        <input type="hidden" name="redirectTo" value={fields.redirectTo.defaultValue ?? "/"} />
        <RadioGroupField
          meta={fields.theme}
          label="Colour theme"
          hint="System follows your device's setting."
          options={THEME_OPTIONS}
        />
        <SubmitButton pendingLabel="Saving…">Save theme</SubmitButton>
      </ValidatedForm>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: `Theme · ${APP_NAME}` }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
