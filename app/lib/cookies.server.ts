import { createHmac } from "node:crypto";
import { createCookie } from "@remix-run/node";
import { getConfig } from "./config.server";

/** A cookie's name as sent: behind https with `__Host-`, so only this host, over https, sets it. */
export function getCookieName(name: string) {
  return getConfig().secureCookies ? `__Host-${name}` : name;
}

/** A cookie signed with a key of its own (from SESSION_SECRET and its name): HttpOnly, Lax, Secure
 * behind https. */
export function createSignedCookie(name: string, maxAge?: number) {
  const { sessionSecrets, secureCookies } = getConfig();
  const sent = getCookieName(name);
  return createCookie(sent, {
    httpOnly: true,
    sameSite: "lax",
    secure: secureCookies,
    path: "/",
    maxAge,
    secrets: (sessionSecrets ?? []).map((secret) => deriveCookieKey(secret, sent)),
  });
}

function deriveCookieKey(secret: string, cookieName: string) {
  return createHmac("sha256", secret).update(`cookie:${cookieName}`).digest("base64url");
}
