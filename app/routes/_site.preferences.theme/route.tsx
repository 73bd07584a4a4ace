import type {
  ActionFunctionArgs,
  HeadersFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/node";
import { data } from "@remix-run/node";
import { useActionData } from "@remix-run/react";
import { ErrorPage, GeneralErrorBoundary } from "~/components/error-boundary";
import { ErrorSummary, useValidatedForm, ValidatedForm } from "~/forms";
import { RadioGroupField, SubmitButton } from "~/forms/fields";
import { submitForm } from "~/forms/index.server";
import { getMessages, getTranslator } from "~/i18n/locale.server";
import { shellMessages } from "~/i18n/messages.server";
import { getTranslatorFor, useTranslate } from "~/i18n/translate";
import { getError } from "~/lib/errors";
import type { RouteHandle } from "~/lib/route-handle";
import { getSafeRedirect } from "~/lib/safe-redirect";
import { THEME_ACTION_PATH, THEMES } from "./theme";
import { serializeTheme, ThemeFormSchema } from "./theme.server";

// Reached only by a plain form post or by typing the address: a page that needs no script.
export const handle: RouteHandle = { hydrate: false };

// A GET answers 405; returned, not thrown: Remix also runs this loader to render a refused post.
export async function loader({ request }: LoaderFunctionArgs) {
  const messages = await getMessages(request, shellMessages, "themePage");
  const status = getError("METHOD_NOT_ALLOWED").status;
  return data({ messages }, { status, headers: { Allow: "POST" } });
}

export async function action({ request }: ActionFunctionArgs) {
  return submitForm(request, ThemeFormSchema, async ({ theme, redirectTo }) => {
    const t = await getTranslator(request);
    return {
      redirectTo: getSafeRedirect(redirectTo),
      flash: t("theme.saved", { theme: t(`theme.${theme}`) }),
      headers: { "Set-Cookie": await serializeTheme(theme) },
    };
  });
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

export default function ThemePreferencePage() {
  const reply = useActionData<typeof action>();
  const t = useTranslate();
  const [form, fields] = useValidatedForm<typeof ThemeFormSchema>({ id: "theme-form" });
  if (!reply) return <ErrorPage status={getError("METHOD_NOT_ALLOWED").status} />;
  const options = THEMES.map((value) => ({ value, label: t(`theme.${value}`) }));
  return (
    <>
      <h1>{t("themePage.title")}</h1>
      <ErrorSummary form={form} fields={[fields.theme]} />
      <ValidatedForm form={form} action={THEME_ACTION_PATH} className="form">
        <input type="hidden" name="redirectTo" value={fields.redirectTo.defaultValue ?? "/"} />
        <RadioGroupField
          meta={fields.theme}
          label={t("themePage.label")}
          hint={t("themePage.hint")}
          options={options}
        />
        <SubmitButton pendingLabel={t("themePage.saving")}>{t("themePage.save")}</SubmitButton>
      </ValidatedForm>
    </>
  );
}

export const meta: MetaFunction = ({ matches }) => {
  const t = getTranslatorFor(matches);
  return [{ title: t.title(t("themePage.title")) }];
};

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
