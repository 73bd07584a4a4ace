import { domainToUnicode } from "node:url";
import type { Request, Response } from "express";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import type { ErrorCode } from "~/lib/errors";

const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const PROBE_PATHS = new Set(["/healthz", "/readyz"]);
// Remix matches every parent of a page's path while rendering it: quadratic in the segments.
const MAX_PATH_SEGMENTS = 32;
const MAX_DISCOVERED_PATHS = 256;
const MAX_ROUTE_MATCHES = 4_096;
const MAX_DISCOVERY_URL = 7_680;
// Any segment no route names: only a param or a splat matches it, and this.
const ANY_SEGMENT = ":";

/** The origin, decided once for all after it: ORIGIN, else a scheme and host that write back as sent. */
export function createOriginCheck(config: Config) {
  const own = config.ORIGIN ? new URL(config.ORIGIN) : null;
  const remembered = new Map<string, string | null>();
  return (req: Request, res: Response): ErrorCode | undefined => {
    const forwarded = config.TRUST_PROXY ? req.get("x-forwarded-host") : undefined;
    const host = forwarded === undefined ? req.headers.host : forwarded.split(",")[0]!.trim();
    const protocol = req.protocol;
    const scheme = own ? own.protocol.slice(0, -1) : protocol;
    const key = `${scheme} ${host}`;
    let origin = remembered.get(key);
    if (origin === undefined) {
      origin = parseOrigin(scheme, host);
      if (remembered.size >= 1_000) remembered.clear();
      if (key.length <= 300) remembered.set(key, origin);
    }
    const isOwnHost = !own || origin === own.origin || PROBE_PATHS.has(req.path);
    if (!origin || !isOwnHost || (protocol !== "http" && protocol !== "https"))
      return "BAD_REQUEST";
    res.locals.origin = own?.origin ?? origin;
  };
}

function parseOrigin(scheme: string, host: string | undefined) {
  if (!host || !HOST.test(host)) return null;
  const sent = host.toLowerCase();
  const url = URL.parse(`${scheme}://${sent}`);
  if (!url) return null;
  const isSameHost = url.host === sent || url.host + (scheme === "https" ? ":443" : ":80") === sent;
  return isSameHost && !url.hostname.split(".").some(isUndecodable) ? url.origin : null;
}

// Node 24 keeps a label claiming to be punycode ("xn--a") undecoded, where Node 20 refuses it.
function isUndecodable(label: string) {
  if (!label.startsWith("xn--")) return false;
  const decoded = domainToUnicode(label);
  return decoded === "" || decoded.startsWith("xn--");
}

/** A path, no legacy `?_data=`, and the lists Remix loops over (`p`, `_routes`) held to what a page can ask for. */
export function checkRemixTarget(build: ServerBuild) {
  const manifestPath = `${build.basename ?? "/"}/__manifest`.replace(/\/+/g, "/");
  const routeIds = new Set(Object.keys(build.routes));
  const maxPaths = Math.min(MAX_DISCOVERED_PATHS, Math.floor(MAX_ROUTE_MATCHES / routeIds.size));
  const toShape = createShaper(build);

  function checkDiscovery(req: Request, res: Response): ErrorCode | undefined {
    const isTooLong = (target: string) =>
      res.locals.origin.length + target.length > MAX_DISCOVERY_URL;
    if (req.method !== "GET" && req.method !== "HEAD") {
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

  return (req: Request, res: Response): ErrorCode | undefined => {
    if (!req.url.startsWith("/") || (req.url.includes("?") && getQuery(req.url).has("_data")))
      return "BAD_REQUEST";
    const path = req.path;
    if (
      path.length > 2 * MAX_PATH_SEGMENTS &&
      path.split("/").filter(Boolean).length > MAX_PATH_SEGMENTS
    ) {
      return "URI_TOO_LONG";
    }
    if (path === manifestPath) return checkDiscovery(req, res);
    if (!path.endsWith(".data")) return;
    const lists = getQuery(req.url).getAll("_routes");
    const ids = lists[0]?.split(",") ?? [];
    if (lists.length > 1 || ids.length > routeIds.size || !ids.every((id) => routeIds.has(id)))
      return "BAD_REQUEST";
  };
}

// A segment as routes see it: itself when a route names it, or Remix reads it as more than one.
function createShaper(build: ServerBuild) {
  const named = new Set<string>();
  const paths = [
    build.basename ?? "",
    ...Object.values(build.routes).map((route) => route.path ?? ""),
  ];
  for (const segment of paths.flatMap((path) => path.split("/"))) {
    if (!segment.startsWith(":") && segment !== "*")
      named.add(segment.replace(/\?$/, "").toLowerCase());
  }
  const decode = (segment: string) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  };
  const keepsItself = (segment: string) =>
    segment === "" || /[?#]/.test(segment) || named.has(decode(segment).toLowerCase());
  return (segment: string) => (keepsItself(segment) ? segment : ANY_SEGMENT);
}

function getQuery(target: string) {
  const start = target.indexOf("?");
  return new URLSearchParams(start === -1 ? "" : target.slice(start + 1));
}

/**
 * Remix hands a form posted to the home address without `?index` to the root; without an action
 * there, its error page would be the only one rendered without the words its loader gives pages.
 */
export function refuseWritesToTheRoot(build: ServerBuild) {
  const home = (build.basename ?? "/").replace(/\/?$/, "/");
  const rootHasAction = build.routes.root?.module.action !== undefined;
  return (req: Request, res: Response): ErrorCode | undefined => {
    if (rootHasAction || req.path !== home || req.method === "GET" || req.method === "HEAD") return;
    if (getQuery(req.url).has("index")) return;
    res.setHeader("Allow", "GET, HEAD");
    return "METHOD_NOT_ALLOWED";
  };
}
