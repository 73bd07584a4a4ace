import { z } from "zod";
import { createSignedCookie } from "~/lib/cookies.server";
import { isTheme, THEMES, type Theme } from "./theme";

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

const themeCookie = createSignedCookie("theme", ONE_YEAR_SECONDS);

// The theme form is validated on the server only: keeping its schema out of the route module
// keeps Zod out of the browser bundle of the route every page's theme control posts to.
export const ThemeFormSchema = z.object({
  theme: z.enum(THEMES, { error: "Choose System, Light or Dark." }),
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
