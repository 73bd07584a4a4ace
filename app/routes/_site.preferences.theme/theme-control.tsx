import { useFetcher, useLocation } from "@remix-run/react";
import { useTranslate } from "~/i18n/translate";
import type { action } from "./route";
import { isTheme, THEME_ACTION_PATH, THEME_FETCHER_KEY, THEMES, type Theme } from "./theme";

export function usePendingTheme(): Theme | undefined {
  const fetcher = useFetcher({ key: THEME_FETCHER_KEY });
  const theme = fetcher.formData?.get("theme");
  return isTheme(theme) ? theme : undefined;
}

/** Without JavaScript a post and a 303 back; with it a fetcher, and the page switches at once (decision 008). */
export function ThemeControl({ theme }: { theme: Theme }) {
  const fetcher = useFetcher<typeof action>({ key: THEME_FETCHER_KEY });
  const location = useLocation();
  const t = useTranslate();
  const current = usePendingTheme() ?? theme;
  // After a rejected post the address is the action's own; coming back to it would be a GET.
  const redirectTo =
    location.pathname === THEME_ACTION_PATH ? "/" : `${location.pathname}${location.search}`;
  const error = fetcher.state === "idle" ? fetcher.data?.errors.theme : undefined;
  return (
    <fetcher.Form method="post" action={THEME_ACTION_PATH} className="theme-control">
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <fieldset aria-describedby={error ? "theme-control-error" : undefined}>
        <legend>{t("theme.legend")}</legend>
        {THEMES.map((value) => (
          <button
            key={value}
            type="submit"
            name="theme"
            value={value}
            aria-pressed={current === value}
          >
            {t(`theme.${value}`)}
          </button>
        ))}
      </fieldset>
      {error ? (
        <p id="theme-control-error" className="field-error" role="alert">
          {error.map(t.text).join(" ")}
        </p>
      ) : null}
    </fetcher.Form>
  );
}
