import type { Request, RequestHandler, Response } from "express";
import type { Store } from "express-rate-limit";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import type { ErrorCode } from "~/lib/errors";
import { expectsContinue, hasBody } from "./body";
import { sendErrorPage } from "./error-page";
import { limitWrites } from "./rate-limit";
import { REPORTS } from "./report-endpoints";
import { checkRemixTarget, createOriginCheck, refuseWritesToTheRoot } from "./remix-request";

export const ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const SAFE_METHODS = new Set(["GET", "HEAD"]);

// Node keeps the first of most of these (or joins them) and a proxy may have acted on the last.
const SINGLE_VALUE_HEADERS = new Set(
  `host content-type content-length content-encoding transfer-encoding origin referer authorization
  proxy-authorization expect range if-range if-modified-since if-unmodified-since sec-fetch-site
  sec-fetch-mode sec-fetch-dest`.split(/\s+/),
);
const REPORT_BODIES = new Map(Object.values(REPORTS).map((report) => [report.path, report]));
export type WriteLimit = { store?: Store; onRateLimited?: () => void };
type Check = (req: Request, res: Response) => ErrorCode | undefined;

/** The checks before static files and Remix, in order (docs/security.md), then the write limit. */
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
      next();
    };
    // The report endpoints count their own.
    if (limiter && !SAFE_METHODS.has(req.method) && !REPORT_BODIES.has(req.path))
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

// The route's body limit and types, held here from the headers and by `readBody` as it streams.
function requireAcceptableBody(limit: number): Check {
  return (req, res) => {
    const report = REPORT_BODIES.get(req.path);
    res.locals.bodyLimit = report?.maxBytes ?? limit;
    const codings = req.headers["transfer-encoding"];
    if (codings !== undefined && codings.trim().toLowerCase() !== "chunked") return "BAD_REQUEST";
    if (SAFE_METHODS.has(req.method) || !hasBody(req)) return;
    if (Number(req.headers["content-length"]) > res.locals.bodyLimit) return "PAYLOAD_TOO_LARGE";
    const encoding = req.headers["content-encoding"]?.trim().toLowerCase() ?? "identity";
    if (!req.is(report?.types ?? "urlencoded") || encoding !== "identity")
      return "UNSUPPORTED_MEDIA_TYPE";
  };
}
