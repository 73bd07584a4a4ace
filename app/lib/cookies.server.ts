import { createCookie } from "@remix-run/node";
import { getConfig } from "./config.server";

/** A cookie signed with SESSION_SECRET, HttpOnly, SameSite=Lax, and Secure when ORIGIN is https. */
export function createSignedCookie(name: string, maxAge?: number) {
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
