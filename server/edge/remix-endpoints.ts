import type { Request, Response } from "express";
import type { ServerBuild } from "@remix-run/node";
import type { ErrorCode } from "~/lib/errors";

// Remix matches every parent of a page's path while rendering it: quadratic in the segments.
const MAX_PATH_SEGMENTS = 32;
// Route discovery costs paths asked for times routes: paths are counted by shape, up to these.
const MAX_DISCOVERED_PATHS = 256;
const MAX_ROUTE_MATCHES = 4_096;
// Remix's own limit on a route discovery URL, the one its browser code keeps under.
const MAX_DISCOVERY_URL = 7_680;
// Stands for any segment no route names: only a param or a splat can match it, and match this.
const ANY_SEGMENT = ":";
const READ_METHODS = new Set(["GET", "HEAD"]);

/**
 * Origin-form targets only (absolute-form is for proxies), no legacy `?_data=` (nothing here sends
 * it), and what Remix answers by itself with lists the visitor writes, route discovery
 * (`/__manifest?p=…`) and single fetch's `_routes`, held to what a page of this build can ask
 * for before Remix loops over them. Remix is handed the shapes of the paths asked for, each once.
 */
export function checkRemixTarget(build: ServerBuild) {
  const manifestPath = `${build.basename ?? "/"}/__manifest`.replace(/\/+/g, "/");
  const routeIds = new Set(Object.keys(build.routes));
  const maxPaths = Math.min(MAX_DISCOVERED_PATHS, Math.floor(MAX_ROUTE_MATCHES / routeIds.size));
  const toShape = createShaper(build);

  function checkDiscovery(req: Request, res: Response): ErrorCode | undefined {
    const isTooLong = (target: string) => res.locals.origin.length + target.length > MAX_DISCOVERY_URL;
    if (!READ_METHODS.has(req.method)) {
      res.setHeader("Allow", "GET, HEAD");
      return "METHOD_NOT_ALLOWED";
    }
    if (isTooLong(req.url)) return "URI_TOO_LONG";
    const query = getQuery(req.url);
    const paths = query.getAll("p");
    if (paths.length === 0) return "BAD_REQUEST";
    const shapes = new Set<string>();
    const matched = new Set<string>();
    for (const path of paths) {
      const segments = (path.startsWith("/") ? path : `/${path}`).split("/").slice(1);
      if (segments.length > MAX_PATH_SEGMENTS) return "URI_TOO_LONG";
      const shape = segments.map(toShape);
      shapes.add(`/${shape.join("/")}`);
      for (let i = 1; i <= shape.length; i++) matched.add(shape.slice(0, i).join("/"));
      if (matched.size > maxPaths) return "URI_TOO_LONG";
    }
    query.delete("p");
    const asked = [...shapes].map(
      (shape) => `p=${encodeURIComponent(shape).replace(/%2F|%3A/g, decodeURIComponent)}`,
    );
    const target = `${req.path}?${[...asked, query.toString()].filter(Boolean).join("&")}`;
    if (isTooLong(target)) return "URI_TOO_LONG";
    req.url = req.originalUrl = target;
  }

  function checkRouteList(req: Request) {
    const list = getQuery(req.url).getAll("_routes");
    if (list.length > 1) return "BAD_REQUEST";
    const ids = list[0]?.split(",") ?? [];
    if (ids.length > routeIds.size || !ids.every((id) => routeIds.has(id))) return "BAD_REQUEST";
  }

  return (req: Request, res: Response) => {
    if (!req.url.startsWith("/") || (req.url.includes("?") && getQuery(req.url).has("_data")))
      return "BAD_REQUEST";
    const path = req.path;
    // A path shorter than twice the limit cannot have that many segments.
    if (path.length > 2 * MAX_PATH_SEGMENTS && path.split("/").filter(Boolean).length > MAX_PATH_SEGMENTS) {
      return "URI_TOO_LONG";
    }
    if (path === manifestPath) return checkDiscovery(req, res);
    if (path.endsWith(".data")) return checkRouteList(req);
  };
}

/**
 * A path segment as the route tree sees it: itself when some route (or the basename) names it,
 * in any case, or when Remix would read it as more than a segment (`?`, `#`); else ANY_SEGMENT.
 */
function createShaper(build: ServerBuild) {
  const named = new Set<string>();
  const paths = [build.basename ?? "", ...Object.values(build.routes).map((route) => route.path ?? "")];
  for (const segment of paths.flatMap((path) => path.split("/"))) {
    if (!segment.startsWith(":") && segment !== "*") named.add(segment.replace(/\?$/, "").toLowerCase());
  }
  const keepsItself = (segment: string) =>
    segment === "" || /[?#]/.test(segment) || named.has(decodeSegment(segment).toLowerCase());
  return (segment: string) => (keepsItself(segment) ? segment : ANY_SEGMENT);
}

/** The query of a request target, read as Remix's URL parser reads it (a later `?` is part of it). */
function getQuery(target: string) {
  const start = target.indexOf("?");
  return new URLSearchParams(start === -1 ? "" : target.slice(start + 1));
}

function decodeSegment(segment: string) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
