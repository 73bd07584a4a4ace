import type { RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import { sendErrorPage } from "./error-page";

// Remix matches every parent of a page's path while rendering it: quadratic in the segments.
export const MAX_PATH_SEGMENTS = 32;

/**
 * Route discovery matches each path it is asked about, and each of their parents, against the
 * whole route tree, one at a time: its cost is paths times routes. Paths are counted by their
 * shape (below), so a page of any number of links to records of a few routes asks for a handful;
 * a larger route tree allows fewer.
 */
const MAX_DISCOVERED_PATHS = 256;
const MAX_ROUTE_MATCHES = 4_096;

/** How many paths (by shape, parents included) one route discovery may ask about. */
export function getMaxDiscoveredPaths(routeCount: number) {
  return Math.min(MAX_DISCOVERED_PATHS, Math.floor(MAX_ROUTE_MATCHES / routeCount));
}

// Remix's own limit on a route discovery URL, the one its browser code keeps under.
const MAX_DISCOVERY_URL = 7_680;

// Stands for any segment no route names: only a param or a splat can match it, and match this.
const ANY_SEGMENT = ":";

const READ_METHODS = new Set(["GET", "HEAD"]);

/**
 * The requests Remix answers by itself with lists the visitor writes: route discovery
 * (`/__manifest?p=…`) and single fetch's `_routes`. Each list is held to what a page of this
 * build can ask for, before Remix loops over it.
 */
export function requireBoundedRemixRequests(build: ServerBuild): RequestHandler {
  const manifestPath = `${build.basename ?? "/"}/__manifest`.replace(/\/+/g, "/");
  const routeIds = new Set(Object.keys(build.routes));
  const maxPaths = getMaxDiscoveredPaths(routeIds.size);
  const toShape = createShaper(build);
  return (req, res, next) => {
    if (req.path === manifestPath) return checkDiscovery();
    if (req.path.endsWith(".data")) return checkRouteList();
    next();

    // Remix is handed the shapes of the paths asked for, each once: they match the same routes.
    function checkDiscovery() {
      const isTooLong = (target: string) => res.locals.origin.length + target.length > MAX_DISCOVERY_URL;
      if (!READ_METHODS.has(req.method)) {
        return sendErrorPage(res, "METHOD_NOT_ALLOWED", { Allow: "GET, HEAD" });
      }
      if (isTooLong(req.url)) return sendErrorPage(res, "URI_TOO_LONG");
      const query = getQuery(req.url);
      const paths = query.getAll("p");
      if (paths.length === 0) return sendErrorPage(res, "BAD_REQUEST");
      const shapes = new Set<string>();
      const matched = new Set<string>();
      for (const path of paths) {
        const segments = (path.startsWith("/") ? path : `/${path}`).split("/").slice(1);
        if (segments.length > MAX_PATH_SEGMENTS) return sendErrorPage(res, "URI_TOO_LONG");
        const shape = segments.map(toShape);
        shapes.add(`/${shape.join("/")}`);
        for (let i = 1; i <= shape.length; i++) matched.add(shape.slice(0, i).join("/"));
        if (matched.size > maxPaths) return sendErrorPage(res, "URI_TOO_LONG");
      }
      query.delete("p");
      const asked = [...shapes].map(
        (shape) => `p=${encodeURIComponent(shape).replace(/%2F|%3A/g, decodeURIComponent)}`,
      );
      const target = `${req.path}?${[...asked, query.toString()].filter(Boolean).join("&")}`;
      if (isTooLong(target)) return sendErrorPage(res, "URI_TOO_LONG");
      req.url = req.originalUrl = target;
      next();
    }

    function checkRouteList() {
      const list = getQuery(req.url).getAll("_routes");
      if (list.length > 1) return sendErrorPage(res, "BAD_REQUEST");
      const ids = list[0]?.split(",") ?? [];
      if (ids.length > routeIds.size || !ids.every((id) => routeIds.has(id))) {
        return sendErrorPage(res, "BAD_REQUEST");
      }
      next();
    }
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
export function getQuery(target: string) {
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
