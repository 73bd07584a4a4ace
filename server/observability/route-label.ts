import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";
import type { ServerBuild } from "@remix-run/node";

// Paths seen often are remembered; a visitor sending ever new paths only ever fills this many,
// none longer than this.
const MAX_REMEMBERED = 1_000;
const MAX_REMEMBERED_LENGTH = 200;

/**
 * The Remix route id that answers a path (its deepest match, `routes/_site.things.$id`), or
 * `not_found`: a label with as many values as the app has routes, never the path itself. A data
 * request (`/things/1.data`, `/_root.data`) is labelled as its page; Remix's route discovery
 * (`/__manifest`, asked by browsers as links come into view) is `manifest`.
 */
export function createRouteLabeler(build: ServerBuild) {
  const routes = toRouteTree(build.routes);
  const manifestPath = `${build.basename ?? "/"}/__manifest`.replace(/\/+/g, "/");
  const remembered = new Map<string, string>();
  return (path: string) => {
    let label = remembered.get(path);
    if (label === undefined) {
      const pagePath = path === "/_root.data" ? "/" : path.replace(/\.data$/, "");
      label =
        path === manifestPath ? "manifest" : (matchRoutes(routes, pagePath)?.at(-1)?.route.id ?? "not_found");
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      if (path.length <= MAX_REMEMBERED_LENGTH) remembered.set(path, label);
    }
    return label;
  };
}

function toRouteTree(routes: ServerBuild["routes"], parentId?: string): AgnosticRouteObject[] {
  return Object.values(routes)
    .filter((route) => route.parentId === parentId)
    .map((route) => {
      const children = toRouteTree(routes, route.id);
      const base = { id: route.id, path: route.path, caseSensitive: route.caseSensitive };
      return route.index ? { ...base, index: true } : { ...base, children };
    });
}
