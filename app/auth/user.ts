/** The signed-in visitor as pages see them: nothing secret, safe in loader data. */
export type User = { name: string; roles: string[] };

/** Where a sign-in link goes: the sign-in route, then back to `redirectTo` (a path on this site). */
export function getSignInHref(redirectTo: string) {
  return `/auth/sign-in?${new URLSearchParams({ redirectTo })}`;
}
