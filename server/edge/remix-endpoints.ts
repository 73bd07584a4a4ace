import type { RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import { sendErrorPage } from "./error-page";

// Remix matches every parent of a page's path while rendering it: quadratic in the segments.
export const MAX_PATH_SEGMENTS = 32;

/**
 * Route discovery matches each path it is asked about, and each of their parents, against the
 * whole route tree, one at a time. A page whose links need more than this is discovered link by
 * link as they are followed, as Remix does for a list longer than its URL limit.
 */
const MAX_DISCOVERED_PATHS = 256;

// Remix's own limit on a route discovery URL, the one its browser code keeps under.
const MAX_DISCOVERY_URL = 7_680;

const READ_METHODS = new Set(["GET", "HEAD"]);

/**
 * The requests Remix answers by itself with lists the visitor writes: route discovery
 * (`/__manifest?p=…`) and single fetch's `_routes`. Each list is held to what a page of this
 * build can ask for, before Remix loops over it.
 */
export function requireBoundedRemixRequests(build: ServerBuild): RequestHandler {
  const manifestPath = `${build.basename ?? "/"}/__manifest`.replace(/\/+/g, "/");
  const routeIds = new Set(Object.keys(build.routes));
  return (req, res, next) => {
    if (req.path === manifestPath) return checkDiscovery(req.method, res.locals.origin + req.url);
    if (req.path.endsWith(".data")) return checkRouteList(req.url);
    next();

    function checkDiscovery(method: string, url: string) {
      if (!READ_METHODS.has(method)) return sendErrorPage(res, "METHOD_NOT_ALLOWED", { Allow: "GET, HEAD" });
      if (url.length > MAX_DISCOVERY_URL) return sendErrorPage(res, "URI_TOO_LONG");
      const paths = new URL(url).searchParams.getAll("p");
      if (paths.length === 0) return sendErrorPage(res, "BAD_REQUEST");
      const matched = new Set<string>();
      for (const path of paths) {
        const segments = (path.startsWith("/") ? path : `/${path}`).split("/").slice(1);
        if (segments.length > MAX_PATH_SEGMENTS) return sendErrorPage(res, "URI_TOO_LONG");
        for (let i = 1; i <= segments.length; i++) matched.add(segments.slice(0, i).join("/"));
        if (matched.size > MAX_DISCOVERED_PATHS) return sendErrorPage(res, "URI_TOO_LONG");
      }
      next();
    }

    function checkRouteList(url: string) {
      const list = new URLSearchParams(url.split("?", 2)[1]).getAll("_routes");
      if (list.length > 1) return sendErrorPage(res, "BAD_REQUEST");
      const ids = list[0]?.split(",") ?? [];
      if (ids.length > routeIds.size || !ids.every((id) => routeIds.has(id))) {
        return sendErrorPage(res, "BAD_REQUEST");
      }
      next();
    }
  };
}
