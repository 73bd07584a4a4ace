/** The colour themes a visitor can choose; "system" follows the operating system's setting. */
export const THEMES = ["system", "light", "dark"] as const;

export type Theme = (typeof THEMES)[number];

export const THEME_ACTION_PATH = "/preferences/theme";

/** The fetcher the header control submits with; the document reads it to switch theme at once. */
export const THEME_FETCHER_KEY = "theme";

export function isTheme(value: unknown): value is Theme {
  return THEMES.includes(value as Theme);
}
