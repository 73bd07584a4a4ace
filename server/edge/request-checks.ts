import type { RequestHandler } from "express";
import { ipKeyGenerator, rateLimit, type Store } from "express-rate-limit";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import { getClientAddress } from "./client-address";
import { hasBody, sendErrorPage } from "./error-page";
import {
  refuseRepeatedHeaders,
  refuseTooManyHeaders,
  requireKnownExpectation,
  requirePlainFraming,
  sendContinue,
} from "./header-checks";
import { getQuery, MAX_PATH_SEGMENTS, requireBoundedRemixRequests } from "./remix-endpoints";
import { createRequestOrigin } from "./request-origin";

export const ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * The checks every request passes before static files and Remix, in this order, each with its
 * own catalogued answer. Remix's own origin check then only ever sees same-origin writes.
 */
type RateLimitOptions = {
  /** Where the counts are kept; unset: in this process. */
  store?: Store;
  onRateLimited?: () => void;
};

export function createEdge(
  config: Config,
  build: ServerBuild,
  rateLimit: RateLimitOptions = {},
): RequestHandler[] {
  return [
    refuseTooManyHeaders,
    refuseRepeatedHeaders,
    requireKnownExpectation,
    ...(config.TRUST_PROXY ? [] : [dropForwardedHeaders]),
    createRequestOrigin(config),
    requireAllowedMethod,
    requireAppTarget,
    requireBoundedRemixRequests(build),
    requireSameOrigin,
    requirePlainFraming,
    requireAcceptableBody(config.BODY_LIMIT_BYTES),
    ...(config.RATE_LIMIT_PER_MINUTE > 0 ? [limitWrites(config.RATE_LIMIT_PER_MINUTE, rateLimit)] : []),
    sendContinue,
  ];
}

const isForwarded = (name: string) => /^(x-forwarded-|forwarded$)/i.test(name);

// Remix gets its headers from req.headers, so deleting them here is enough.
const dropForwardedHeaders: RequestHandler = (req, _res, next) => {
  for (const name of Object.keys(req.headers)) if (isForwarded(name)) delete req.headers[name];
  next();
};

const requireAllowedMethod: RequestHandler = (req, res, next) => {
  if (ALLOWED_METHODS.includes(req.method)) return next();
  sendErrorPage(res, "METHOD_NOT_ALLOWED", { Allow: ALLOWED_METHODS.join(", ") });
};

/**
 * Only origin-form targets ("/path?query") name a resource here (absolute-form is for proxies),
 * and `?_data=` asks for Remix's pre-single-fetch data requests, which nothing here sends. No
 * page has more than MAX_PATH_SEGMENTS segments.
 */
const requireAppTarget: RequestHandler = (req, res, next) => {
  const isDataRequest = getQuery(req.url).has("_data");
  if (!req.url.startsWith("/") || isDataRequest) return sendErrorPage(res, "BAD_REQUEST");
  const segments = req.path.split("/").filter(Boolean).length;
  if (segments > MAX_PATH_SEGMENTS) return sendErrorPage(res, "URI_TOO_LONG");
  next();
};

/**
 * Refuses writes a browser sends on behalf of another site. A client that sends neither Origin
 * nor Sec-Fetch-Site is not a browser acting for someone else, so it goes on.
 */
const requireSameOrigin: RequestHandler = (req, res, next) => {
  if (SAFE_METHODS.has(req.method)) return next();
  const origin = req.get("origin");
  const fetchSite = req.get("sec-fetch-site");
  const isCrossOrigin = origin !== undefined && origin !== res.locals.origin;
  const isCrossSite = fetchSite === "cross-site" || fetchSite === "same-site";
  if (isCrossOrigin || isCrossSite) return sendErrorPage(res, "CROSS_SITE_REQUEST");
  next();
};

/**
 * Forms post URL-encoded fields and nothing else, as sent (no Content-Encoding is decoded);
 * multipart waits until a route takes uploads. A declared length over the limit is refused
 * before any of the body is read; the Remix adapter cuts off a chunked body at the limit.
 */
function requireAcceptableBody(limit: number): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    if (!hasBody(req)) return next();
    if (Number(req.headers["content-length"]) > limit) return sendErrorPage(res, "PAYLOAD_TOO_LARGE");
    const encoding = req.headers["content-encoding"]?.trim().toLowerCase() ?? "identity";
    if (!req.is("urlencoded") || encoding !== "identity") return sendErrorPage(res, "UNSUPPORTED_MEDIA_TYPE");
    next();
  };
}

function limitWrites(perMinute: number, { store, onRateLimited }: RateLimitOptions): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    skip: (req) => SAFE_METHODS.has(req.method),
    // IPv6 clients are counted by /56, as the library does by default.
    keyGenerator: (req) => ipKeyGenerator(getClientAddress(req)),
    // What a client sends is not checked by the library: it would say so at error level.
    validate: { ip: false, trustProxy: false, xForwardedForHeader: false, forwardedHeader: false },
    standardHeaders: "draft-8",
    legacyHeaders: false,
    handler: (_req, res) => {
      onRateLimited?.();
      sendErrorPage(res, "RATE_LIMITED");
    },
    // A shared store that fails lets the write through; the store reports it (rate-limit-store.ts).
    ...(store ? { store, passOnStoreError: true, logger: { error: () => {}, warn: () => {} } } : {}),
  });
}
