import { hkdfSync } from "node:crypto";
import { getConfig } from "~/lib/config.server";
import { loadJose } from "./libraries.server";

// The browser keeps at most 4,096 bytes of one cookie, its name and attributes included.
const MAX_COOKIE_BYTES = 4_096;

export class CookieTooLargeError extends Error {
  name = "CookieTooLargeError";
}

/**
 * A cookie whose value is a JWE (jose, A256GCM) readable only by this app: HttpOnly,
 * SameSite=Lax, and Secure with the `__Host-` prefix when ORIGIN is https. Each cookie encrypts
 * with its own key derived from SESSION_SECRET and its name; every secret in the list opens it.
 */
export function createSealedCookie<Payload extends object>(baseName: string) {
  const { secureCookies, sessionSecrets } = getConfig();
  const name = secureCookies ? `__Host-${baseName}` : baseName;
  const keys = (sessionSecrets ?? []).map(
    (secret) => new Uint8Array(hkdfSync("sha256", secret, "", `sealed-cookie:${baseName}`, 32)),
  );
  const attributes = `Path=/; HttpOnly; SameSite=Lax${secureCookies ? "; Secure" : ""}`;

  return {
    name,
    /** The Set-Cookie value holding `payload` for `maxAgeSeconds`; throws CookieTooLargeError past 4 KB. */
    async seal(payload: Payload, maxAgeSeconds: number) {
      const { EncryptJWT } = await loadJose();
      const value = await new EncryptJWT({ ...payload } as Record<string, unknown>)
        .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
        .setExpirationTime(Math.ceil(Date.now() / 1000) + maxAgeSeconds)
        .encrypt(keys[0]!);
      const cookie = `${name}=${value}; Max-Age=${maxAgeSeconds}; ${attributes}`;
      if (Buffer.byteLength(cookie) > MAX_COOKIE_BYTES)
        throw new CookieTooLargeError(`${name} would pass 4 KB`);
      return cookie;
    },
    /** The payload of the request's cookie, or null when it is missing, expired or not ours. */
    async open(request: Request): Promise<Payload | null> {
      const value = readCookie(request, name);
      if (!value) return null;
      const { jwtDecrypt } = await loadJose();
      for (const key of keys) {
        try {
          const { payload } = await jwtDecrypt(value, key, {
            keyManagementAlgorithms: ["dir"],
            contentEncryptionAlgorithms: ["A256GCM"],
          });
          return payload as Payload;
        } catch {
          // Sealed with another secret of the list, expired, or tampered with: try the next key.
        }
      }
      return null;
    },
    /** The Set-Cookie value that removes the cookie. */
    clear: () => `${name}=; Max-Age=0; ${attributes}`,
  };
}

/** The value of the cookie `name` in the request's Cookie header, or null. */
export function readCookie(request: Request, name: string) {
  for (const pair of (request.headers.get("Cookie") ?? "").split(";")) {
    const separator = pair.indexOf("=");
    if (separator !== -1 && pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim();
  }
  return null;
}
