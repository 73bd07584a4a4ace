import type { ServerBuild } from "@remix-run/node";
import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";

type RouteEntry = ServerBuild["routes"][string];

// Matching flattens and ranks the routes each time (about 70 µs here); the answer for a path
// never changes, so the paths most asked for are remembered, up to this many.
const MAX_REMEMBERED = 1_000;
const MAX_REMEMBERED_PATH_LENGTH = 200;

/**
 * Names the route Remix answers a path with: the id of its deepest match, found as Remix finds
 * it ("manifest" for Remix's own route discovery requests, "not_found" when nothing matches).
 * Never the path itself, so a metric labelled with it keeps one series per route.
 */
export function createRouteNamer(build: ServerBuild): (pathname: string) => string {
  const routes = nest(Object.values(build.routes), undefined);
  const manifestPath = `${build.basename ?? "/"}/__manifest`.replace(/\/+/g, "/");
  const match = (pathname: string) => {
    if (pathname === manifestPath) return "manifest";
    // A single-fetch data request asks for a page's data at its path plus ".data" ("/_root.data" for "/").
    const pagePath = pathname.endsWith(".data") ? pathname.slice(0, -5).replace(/^\/_root$/, "/") : pathname;
    return matchRoutes(routes, pagePath, build.basename)?.at(-1)?.route.id ?? "not_found";
  };
  const remembered = new Map<string, string>();
  return (pathname) => {
    let name = remembered.get(pathname);
    if (name !== undefined) return name;
    name = match(pathname);
    if (pathname.length <= MAX_REMEMBERED_PATH_LENGTH) {
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(pathname, name);
    }
    return name;
  };
}

function nest(entries: (RouteEntry | undefined)[], parentId: string | undefined): AgnosticRouteObject[] {
  return entries
    .filter((entry): entry is RouteEntry => entry?.parentId === parentId)
    .map(({ id, path, index, caseSensitive }) =>
      index
        ? { id, path, index: true, caseSensitive }
        : { id, path, caseSensitive, children: nest(entries, id) },
    );
}
