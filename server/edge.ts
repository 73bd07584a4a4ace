import type { Request as ExpressRequest, RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import type { Config } from "~/lib/config.server";
import { hasBody, sendErrorPage } from "./error-page";

export const ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

const SAFE_METHODS = new Set(["GET", "HEAD"]);

// A DNS name, an IPv4 address or a bracketed IPv6 address, with an optional port.
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The checks every request passes before static files and Remix, in this order, each with its
 * own catalogued answer. Remix's own origin check then only ever sees same-origin writes.
 */
export function createEdge(config: Config): RequestHandler[] {
  return [
    requireValidHost,
    config.TRUST_PROXY ? requireValidForwarding : dropForwardedHeaders,
    requireAllowedMethod,
    requireAppTarget,
    requireSameOrigin(config),
    requireAcceptableBody(config.BODY_LIMIT_BYTES),
    ...(config.RATE_LIMIT_PER_MINUTE > 0 ? [limitWrites(config.RATE_LIMIT_PER_MINUTE)] : []),
  ];
}

/**
 * The origin this server answers for: ORIGIN when set, else the scheme and host the request
 * was sent to, as a browser would write it (lower case, no default port).
 */
export function getOwnOrigin(req: ExpressRequest, config: Config) {
  if (config.ORIGIN) return config.ORIGIN;
  return new URL(`${req.protocol}://${getForwardedHost(req) || req.get("host")}`).origin;
}

function getForwardedHost(req: ExpressRequest) {
  return req.get("x-forwarded-host")?.split(",")[0]?.trim();
}

// Exactly one (HTTP/1.0 included): the app's URLs are built from it, and two could disagree.
const requireValidHost: RequestHandler = (req, res, next) => {
  const host = req.headers.host;
  let hostCount = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === "host") hostCount++;
  }
  if (!host || !HOST.test(host) || hostCount !== 1) return sendErrorPage(res, "BAD_REQUEST");
  next();
};

const isForwarded = (name: string) => /^(x-forwarded-|forwarded$)/i.test(name);

const dropForwardedHeaders: RequestHandler = (req, _res, next) => {
  const forwarded = Object.keys(req.headers).filter(isForwarded);
  if (forwarded.length === 0) return next();
  for (const name of forwarded) delete req.headers[name];
  // The Remix adapter copies the raw headers, so they are filtered too.
  req.rawHeaders = req.rawHeaders.filter((_, i, raw) => !isForwarded(raw[i - (i % 2)]!));
  next();
};

// A trusted proxy's word on the public host and scheme still has to make a URL.
const requireValidForwarding: RequestHandler = (req, res, next) => {
  const forwardedHost = getForwardedHost(req);
  const isValidHost = forwardedHost === undefined || HOST.test(forwardedHost);
  if (!isValidHost || !["http", "https"].includes(req.protocol)) return sendErrorPage(res, "BAD_REQUEST");
  next();
};

const requireAllowedMethod: RequestHandler = (req, res, next) => {
  if (ALLOWED_METHODS.includes(req.method)) return next();
  sendErrorPage(res, "METHOD_NOT_ALLOWED", { Allow: ALLOWED_METHODS.join(", ") });
};

/**
 * Only origin-form targets ("/path?query") name a resource here (absolute-form is for proxies),
 * and `?_data=` asks for Remix's pre-single-fetch data requests, which nothing here sends.
 */
const requireAppTarget: RequestHandler = (req, res, next) => {
  const query = req.url.split("?", 2)[1];
  const isDataRequest = query !== undefined && new URLSearchParams(query).has("_data");
  if (!req.url.startsWith("/") || isDataRequest) return sendErrorPage(res, "BAD_REQUEST");
  next();
};

/**
 * Refuses writes a browser sends on behalf of another site. A client that sends neither Origin
 * nor Sec-Fetch-Site is not a browser acting for someone else, so it goes on.
 */
function requireSameOrigin(config: Config): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const origin = req.get("origin");
    const fetchSite = req.get("sec-fetch-site");
    const isCrossOrigin = origin !== undefined && origin !== getOwnOrigin(req, config);
    const isCrossSite = fetchSite === "cross-site" || fetchSite === "same-site";
    if (isCrossOrigin || isCrossSite) return sendErrorPage(res, "CROSS_SITE_REQUEST");
    next();
  };
}

/**
 * Forms post URL-encoded fields and nothing else; multipart waits until a route takes uploads.
 * A declared length over the limit is refused before any of the body is read; the Remix
 * adapter cuts off a chunked body at the limit.
 */
function requireAcceptableBody(limit: number): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    if (!hasBody(req)) return next();
    if (Number(req.headers["content-length"]) > limit) return sendErrorPage(res, "PAYLOAD_TOO_LARGE");
    if (!req.is("urlencoded")) return sendErrorPage(res, "UNSUPPORTED_MEDIA_TYPE");
    next();
  };
}

function limitWrites(perMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    skip: (req) => SAFE_METHODS.has(req.method),
    standardHeaders: "draft-8",
    legacyHeaders: false,
    handler: (_req, res) => sendErrorPage(res, "RATE_LIMITED"),
  });
}
