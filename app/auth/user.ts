/** The signed-in visitor as pages see them: nothing secret, safe in loader data. */
export type User = { name: string; roles: string[] };

export function getSignInHref(redirectTo: string) {
  return `/auth/sign-in?${new URLSearchParams({ redirectTo })}`;
}
