// Longer addresses are refused by some proxies and clients, so a longer target is not followed.
const MAX_LENGTH = 2_048;

/** `to` as a normalised path on this site, else `fallback`: nothing a browser could read as another host. */
export function getSafeRedirect(to: unknown, fallback = "/"): string {
  if (typeof to !== "string" || to.length > MAX_LENGTH || !to.startsWith("/")) return fallback;
  if (to.startsWith("//") || to.includes("\\")) return fallback;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(to)) return fallback;
  if (/%(2f|5c|0[0-9a-f]|1[0-9a-f]|7f|20)/i.test(to)) return fallback;
  const base = "http://this.invalid";
  const url = URL.canParse(to, base) ? new URL(to, base) : null;
  if (url?.origin !== base) return fallback;
  // The URL serialiser percent-encodes everything outside ASCII, so the result fits a header.
  const path = url.pathname.replace(/\/{2,}/g, "/") + url.search + url.hash;
  return path.length <= MAX_LENGTH ? path : fallback;
}
