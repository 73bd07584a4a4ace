import { createHmac } from "node:crypto";
import { createCookie } from "@remix-run/node";
import { getConfig } from "./config.server";

/** A cookie signed with a key of its own (from SESSION_SECRET and its name): HttpOnly, Lax, Secure behind https. */
export function createSignedCookie(name: string, maxAge?: number) {
  const { sessionSecrets, secureCookies } = getConfig();
  return createCookie(name, {
    httpOnly: true,
    sameSite: "lax",
    secure: secureCookies,
    path: "/",
    maxAge,
    secrets: (sessionSecrets ?? []).map((secret) => deriveCookieKey(secret, name)),
  });
}

function deriveCookieKey(secret: string, cookieName: string) {
  return createHmac("sha256", secret).update(`cookie:${cookieName}`).digest("base64url");
}

const flashCookie = createSignedCookie("flash");

/** A one-time message for the next page, in a cookie of its own that lasts for the browser session. */
export function serializeFlash(message: string) {
  return flashCookie.serialize(message);
}

/** The flash message, if any, and the Set-Cookie header that clears it: it is shown once. */
export async function takeFlash(request: Request) {
  const value: unknown = await flashCookie.parse(request.headers.get("Cookie"));
  if (value === null) return { flash: null, headers: new Headers() };
  const headers = new Headers({ "Set-Cookie": await flashCookie.serialize("", { maxAge: 0 }) });
  return { flash: typeof value === "string" && value ? value : null, headers };
}
