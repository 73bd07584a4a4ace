import { z } from "zod";
import { createSignedCookie } from "~/lib/cookies.server";
import { isTheme, THEMES, type Theme } from "./theme";

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

const themeCookie = createSignedCookie("theme", ONE_YEAR_SECONDS);

// Checked on the server only, so the route every page's theme control posts to loads no Zod.
export const ThemeFormSchema = z.object({
  theme: z.enum(THEMES, { error: "theme.invalid" }),
  redirectTo: z.string().optional().catch(undefined),
});

/** The visitor's theme; a missing, unsigned or unknown value means "system". */
export async function getTheme(request: Request): Promise<Theme> {
  const value: unknown = await themeCookie.parse(request.headers.get("Cookie"));
  return isTheme(value) ? value : "system";
}

export function serializeTheme(theme: Theme) {
  return themeCookie.serialize(theme);
}
