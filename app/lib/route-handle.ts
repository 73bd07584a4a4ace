import { useMatches } from "@remix-run/react";

/** `handle: { hydrate: false }`: the route's pages ship no script, and their forms post as plain HTML. */
export type RouteHandle = { hydrate?: boolean };

export function useShouldHydrate() {
  return useMatches().every(
    (match) => (match.handle as RouteHandle | undefined)?.hydrate !== false,
  );
}
