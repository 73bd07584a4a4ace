import { createHmac } from "node:crypto";
import { createCookie } from "@remix-run/node";
import { getConfig } from "./config.server";

/**
 * A cookie signed with SESSION_SECRET, HttpOnly, SameSite=Lax, and Secure when ORIGIN is https.
 * Each cookie signs with a key derived from the secret and its own name, so a value signed for
 * one cookie is not accepted as another.
 */
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
