import { Form, useLocation } from "@remix-run/react";
import { LOCALE_NAMES, LOCALES, type Locale } from "~/i18n/locales";
import { useTranslate } from "~/i18n/translate";

export const LANGUAGE_ACTION_PATH = "/preferences/language";

/**
 * Each language by its own name; a plain post, with or without JavaScript, and a 303 back to the
 * same address, now in that language (decision 026).
 */
export function LanguageControl({ locale }: { locale: Locale }) {
  const { pathname, search } = useLocation();
  const t = useTranslate();
  // The preferences' own addresses answer a GET with 405: come back home from them.
  const redirectTo = pathname.startsWith("/preferences/") ? "/" : `${pathname}${search}`;
  return (
    <Form method="post" action={LANGUAGE_ACTION_PATH} reloadDocument className="language-control">
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <fieldset>
        <legend>{t("language.legend")}</legend>
        {LOCALES.map((value) => (
          <button
            key={value}
            type="submit"
            name="locale"
            value={value}
            lang={value}
            aria-pressed={locale === value}
          >
            {LOCALE_NAMES[value]}
          </button>
        ))}
      </fieldset>
    </Form>
  );
}
