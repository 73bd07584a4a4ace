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
import { getMessages, getTranslator, serializeLocale } from "~/i18n/locale.server";
import { LOCALE_NAMES, LOCALES } from "~/i18n/locales";
import { shellMessages } from "~/i18n/messages.server";
import { getTranslatorFor, useTranslate } from "~/i18n/translate";
import { getError } from "~/lib/errors";
import type { RouteHandle } from "~/lib/route-handle";
import { getSafeRedirect } from "~/lib/safe-redirect";
import { LANGUAGE_ACTION_PATH } from "./language-control";
import { LanguageFormSchema } from "./language.server";

// Reached by a plain form post, and by typing the address: a page that needs no script.
export const handle: RouteHandle = { hydrate: false };

// A GET answers 405; returned, not thrown: Remix also runs this loader to render a refused post.
export async function loader({ request }: LoaderFunctionArgs) {
  const messages = await getMessages(request, shellMessages, "languagePage");
  const status = getError("METHOD_NOT_ALLOWED").status;
  return data({ messages }, { status, headers: { Allow: "POST" } });
}

export async function action({ request }: ActionFunctionArgs) {
  return submitForm(request, LanguageFormSchema, async ({ locale, redirectTo }) => {
    // Said in the language just chosen, as the page it leads to will be.
    const t = await getTranslator(request, shellMessages, locale);
    return {
      redirectTo: getSafeRedirect(redirectTo),
      flash: t("language.saved", { language: LOCALE_NAMES[locale] }),
      headers: { "Set-Cookie": await serializeLocale(locale) },
    };
  });
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

const OPTIONS = LOCALES.map((value) => ({ value, label: LOCALE_NAMES[value], lang: value }));

export default function LanguagePreferencePage() {
  const reply = useActionData<typeof action>();
  const t = useTranslate();
  const [form, fields] = useValidatedForm<typeof LanguageFormSchema>({ id: "language-form" });
  if (!reply) return <ErrorPage status={getError("METHOD_NOT_ALLOWED").status} />;
  return (
    <>
      <h1>{t("languagePage.title")}</h1>
      <ErrorSummary form={form} fields={[fields.locale]} />
      <ValidatedForm form={form} action={LANGUAGE_ACTION_PATH} className="form">
        <input type="hidden" name="redirectTo" value={fields.redirectTo.defaultValue ?? "/"} />
        <RadioGroupField meta={fields.locale} label={t("language.legend")} options={OPTIONS} />
        <SubmitButton pendingLabel={t("languagePage.saving")}>
          {t("languagePage.save")}
        </SubmitButton>
      </ValidatedForm>
    </>
  );
}

export const meta: MetaFunction = ({ matches }) => {
  const t = getTranslatorFor(matches);
  return [{ title: t.title(t("languagePage.title")) }];
};

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
