import { domainToUnicode } from "node:url";
import type { Request, RequestHandler, Response } from "express";
import type { Store } from "express-rate-limit";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import type { ErrorCode } from "~/lib/errors";
import { hasBody, sendErrorPage } from "./error-page";
import { limitWrites } from "./rate-limit";
import { checkRemixTarget } from "./remix-endpoints";

export const ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const SAFE_METHODS = new Set(["GET", "HEAD"]);

// Node keeps the first of most of these (or joins them) and a proxy may have acted on the last.
const SINGLE_VALUE_HEADERS = new Set(
  `host content-type content-length content-encoding transfer-encoding origin referer authorization
  proxy-authorization expect range if-range if-modified-since if-unmodified-since sec-fetch-site
  sec-fetch-mode sec-fetch-dest`.split(/\s+/),
);
// A DNS name, an IPv4 address or a bracketed IPv6 address, with an optional port.
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
// Balancers and orchestrators probe an instance by its own address.
const PROBE_PATHS = new Set(["/healthz", "/readyz"]);

export type WriteLimit = { store?: Store; onRateLimited?: () => void };
// A refused request's catalogue code; headers its answer needs are set on `res` first.
type Check = (req: Request, res: Response) => ErrorCode | undefined;

/**
 * The checks every request passes before static files and Remix, in order (docs/security.md), then
 * the write limit; a client waiting to send its body learns it may once the request is judged.
 */
export function createEdge(
  config: Config,
  build: ServerBuild,
  maxHeaderCount: number,
  writeLimit: WriteLimit = {},
): RequestHandler {
  const checks: Check[] = [
    (req) => (req.rawHeaders.length / 2 > maxHeaderCount ? "HEADERS_TOO_LARGE" : undefined),
    refuseRepeatedHeaders,
    (req) => (req.headers.expect === undefined || expectsContinue(req) ? undefined : "EXPECTATION_FAILED"),
    ...(config.TRUST_PROXY ? [] : [dropForwardedHeaders]),
    createOriginCheck(config),
    requireAllowedMethod,
    checkRemixTarget(build),
    requireSameOrigin,
    requireAcceptableBody(config.BODY_LIMIT_BYTES),
  ];
  const { RATE_LIMIT_PER_MINUTE: perMinute } = config;
  const limiter =
    perMinute > 0 ? limitWrites(perMinute, writeLimit.store, writeLimit.onRateLimited) : undefined;
  return (req, res, next) => {
    for (const check of checks) {
      const refusal = check(req, res);
      if (refusal) return sendErrorPage(res, refusal);
    }
    const proceed = (error?: unknown) => {
      if (error) return next(error);
      if (expectsContinue(req) && req.httpVersion === "1.1" && !res.headersSent) res.writeContinue();
      next();
    };
    if (limiter && !SAFE_METHODS.has(req.method)) void limiter(req, res, proceed);
    else proceed();
  };
}

const requireAllowedMethod: Check = (req, res) => {
  if (ALLOWED_METHODS.includes(req.method)) return;
  res.setHeader("Allow", ALLOWED_METHODS.join(", "));
  return "METHOD_NOT_ALLOWED";
};

const refuseRepeatedHeaders: Check = (req) => {
  const seen = new Set<string>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (!SINGLE_VALUE_HEADERS.has(name)) continue;
    if (seen.has(name)) return "BAD_REQUEST";
    seen.add(name);
  }
};

// Remix gets its headers from req.headers, so deleting them here is enough.
const dropForwardedHeaders: Check = (req) => {
  for (const name of Object.keys(req.headers))
    if (/^(x-forwarded-|forwarded$)/i.test(name)) delete req.headers[name];
  return undefined;
};

/** The origin, decided once for all after it: ORIGIN, else a scheme and host that write back exactly as sent. */
function createOriginCheck(config: Config): Check {
  const own = config.ORIGIN ? new URL(config.ORIGIN) : null;
  // Hosts seen are remembered, as few as there are names for the site; ever new ones fill at most this many.
  const remembered = new Map<string, string | null>();
  const getOrigin = (scheme: string, host: string | undefined) => {
    const key = `${scheme} ${host}`;
    let origin = remembered.get(key);
    if (origin === undefined) {
      origin = parseOrigin(scheme, host);
      if (remembered.size >= 1_000) remembered.clear();
      if (key.length <= 300) remembered.set(key, origin);
    }
    return origin;
  };
  return (req, res) => {
    const forwarded = config.TRUST_PROXY ? req.get("x-forwarded-host") : undefined;
    const host = forwarded === undefined ? req.headers.host : forwarded.split(",")[0]!.trim();
    const protocol = req.protocol;
    const origin = getOrigin(own ? own.protocol.slice(0, -1) : protocol, host);
    const isOwnHost = !own || origin === own.origin || PROBE_PATHS.has(req.path);
    if (!origin || !isOwnHost || (protocol !== "http" && protocol !== "https")) return "BAD_REQUEST";
    res.locals.origin = own?.origin ?? origin;
  };
}

function parseOrigin(scheme: string, host: string | undefined) {
  if (!host || !HOST.test(host)) return null;
  const sent = host.toLowerCase();
  const candidate = `${scheme}://${sent}`;
  if (!URL.canParse(candidate)) return null;
  const url = new URL(candidate);
  const isSameHost = url.host === sent || url.host + (scheme === "https" ? ":443" : ":80") === sent;
  return isSameHost && !hasUndecodableLabel(url.hostname) ? url.origin : null;
}

// Node 24's URL parser keeps a label claiming to be punycode ("xn--a") undecoded, where Node 20's refuses it.
const hasUndecodableLabel = (hostname: string) =>
  hostname.split(".").some((label) => {
    if (!label.startsWith("xn--")) return false;
    const decoded = domainToUnicode(label);
    return decoded === "" || decoded.startsWith("xn--");
  });

/** A write a browser sends for another site; a client sending neither header is no such browser. */
const requireSameOrigin: Check = (req, res) => {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.origin;
  const fetchSite = req.headers["sec-fetch-site"];
  const isCrossOrigin = origin !== undefined && origin !== res.locals.origin;
  if (isCrossOrigin || fetchSite === "cross-site" || fetchSite === "same-site") return "CROSS_SITE_REQUEST";
};

/** A body sent as it is or chunked, of URL-encoded fields, not encoded, not declared over the limit. */
function requireAcceptableBody(limit: number): Check {
  return (req) => {
    const codings = req.headers["transfer-encoding"];
    if (codings !== undefined && codings.trim().toLowerCase() !== "chunked") return "BAD_REQUEST";
    if (SAFE_METHODS.has(req.method) || !hasBody(req)) return;
    if (Number(req.headers["content-length"]) > limit) return "PAYLOAD_TOO_LARGE";
    const encoding = req.headers["content-encoding"]?.trim().toLowerCase() ?? "identity";
    if (!req.is("urlencoded") || encoding !== "identity") return "UNSUPPORTED_MEDIA_TYPE";
  };
}

const expectsContinue = (req: Request) => req.headers.expect?.trim().toLowerCase() === "100-continue";
