import { createCookie } from "@remix-run/node";
import { getConfig } from "./config.server";
import { isTheme, type Theme } from "./theme";

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

function createSignedCookie(name: string, maxAge?: number) {
  const { sessionSecrets, secureCookies } = getConfig();
  return createCookie(name, {
    httpOnly: true,
    sameSite: "lax",
    secure: secureCookies,
    path: "/",
    maxAge,
    secrets: sessionSecrets ?? [],
  });
}

const themeCookie = createSignedCookie("theme", ONE_YEAR_SECONDS);
const flashCookie = createSignedCookie("flash");

/** The visitor's theme; a missing, unsigned or unknown value means "system". */
export async function getTheme(request: Request): Promise<Theme> {
  const value: unknown = await themeCookie.parse(request.headers.get("Cookie"));
  return isTheme(value) ? value : "system";
}

export function serializeTheme(theme: Theme) {
  return themeCookie.serialize(theme);
}

/** A one-time message for the next page, in a cookie of its own that lasts for the browser session. */
export function serializeFlash(message: string) {
  return flashCookie.serialize(message);
}

/**
 * Reads the flash message, if any, with the Set-Cookie header that clears it so it is shown
 * only once.
 */
export async function takeFlash(request: Request) {
  const value: unknown = await flashCookie.parse(request.headers.get("Cookie"));
  if (value === null) return { flash: null, headers: new Headers() };
  const headers = new Headers({ "Set-Cookie": await flashCookie.serialize("", { maxAge: 0 }) });
  return { flash: typeof value === "string" && value ? value : null, headers };
}
