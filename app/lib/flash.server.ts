import { createSignedCookie } from "./cookies.server";

const flashCookie = createSignedCookie("flash");

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
