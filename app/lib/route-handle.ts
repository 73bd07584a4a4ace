import { useMatches } from "@remix-run/react";

/**
 * A route that needs no client script exports `handle: { hydrate: false }`; its pages then ship
 * none, and their forms post as plain HTML forms.
 */
export type RouteHandle = { hydrate?: boolean };

/** Whether every route on the page wants client script. */
export function useShouldHydrate() {
  return useMatches().every((match) => (match.handle as RouteHandle | undefined)?.hydrate !== false);
}
