import type { Request, RequestHandler, Response } from "express";
import type { Store } from "express-rate-limit";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import type { ErrorCode } from "~/lib/errors";
import { hasBody, sendErrorPage } from "./error-page";
import { limitWrites } from "./rate-limit";
import { REPORT_PATHS } from "./report-endpoints";
import { checkRemixTarget, createOriginCheck, refuseWritesToTheRoot } from "./remix-request";

export const ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const SAFE_METHODS = new Set(["GET", "HEAD"]);

// Node keeps the first of most of these (or joins them) and a proxy may have acted on the last.
const SINGLE_VALUE_HEADERS = new Set(
  `host content-type content-length content-encoding transfer-encoding origin referer authorization
  proxy-authorization expect range if-range if-modified-since if-unmodified-since sec-fetch-site
  sec-fetch-mode sec-fetch-dest`.split(/\s+/),
);
export type WriteLimit = { store?: Store; onRateLimited?: () => void };
type Check = (req: Request, res: Response) => ErrorCode | undefined;

/** The checks before static files and Remix, in order (docs/security.md), then the write limit and 100 Continue. */
export function createEdge(
  config: Config,
  build: ServerBuild,
  maxHeaderCount: number,
  writeLimit: WriteLimit = {},
): RequestHandler {
  const checks: Check[] = [
    (req) => (req.rawHeaders.length / 2 > maxHeaderCount ? "HEADERS_TOO_LARGE" : undefined),
    refuseRepeatedHeaders,
    (req) =>
      req.headers.expect === undefined || expectsContinue(req) ? undefined : "EXPECTATION_FAILED",
    ...(config.TRUST_PROXY ? [] : [dropForwardedHeaders]),
    createOriginCheck(config),
    requireAllowedMethod,
    checkRemixTarget(build),
    requireSameOrigin,
    requireAcceptableBody(config.BODY_LIMIT_BYTES),
  ];
  // After the write limit, which counts these writes too.
  const refuseRootWrite = refuseWritesToTheRoot(build);
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
      const refusal = refuseRootWrite(req, res);
      if (refusal) return sendErrorPage(res, refusal);
      if (expectsContinue(req) && req.httpVersion === "1.1" && !res.headersSent)
        res.writeContinue();
      next();
    };
    // The report endpoints count their own.
    if (limiter && !SAFE_METHODS.has(req.method) && !REPORT_PATHS.has(req.path))
      void limiter(req, res, proceed);
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

// A client sending neither header is not a browser acting for another site.
const requireSameOrigin: Check = (req, res) => {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.origin;
  const fetchSite = req.headers["sec-fetch-site"];
  const isCrossOrigin = origin !== undefined && origin !== res.locals.origin;
  if (isCrossOrigin || fetchSite === "cross-site" || fetchSite === "same-site")
    return "CROSS_SITE_REQUEST";
};

function requireAcceptableBody(limit: number): Check {
  return (req) => {
    const codings = req.headers["transfer-encoding"];
    if (codings !== undefined && codings.trim().toLowerCase() !== "chunked") return "BAD_REQUEST";
    if (SAFE_METHODS.has(req.method) || !hasBody(req)) return;
    if (Number(req.headers["content-length"]) > limit) return "PAYLOAD_TOO_LARGE";
    const encoding = req.headers["content-encoding"]?.trim().toLowerCase() ?? "identity";
    // The report endpoints take the types browsers send them, and check them.
    const isForm = req.is("urlencoded") || REPORT_PATHS.has(req.path);
    if (!isForm || encoding !== "identity") return "UNSUPPORTED_MEDIA_TYPE";
  };
}

const expectsContinue = (req: Request) =>
  req.headers.expect?.trim().toLowerCase() === "100-continue";
