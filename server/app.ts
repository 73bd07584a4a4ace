import { readdirSync } from "node:fs";
import path from "node:path";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import { getError, getErrorForStatus } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { parseTraceparent } from "~/lib/trace-context.server";
import { createEdge } from "./edge/request-checks";
import type { Metrics } from "./observability/metrics";
import type { SharedRateLimitStore } from "./edge/rate-limit-store";
import { sendErrorPage } from "./edge/error-page";
import { ClientGoneError, HttpError } from "./edge/http-error";
import { createRemixHandler } from "./remix/remix-handler";
import { createRequestLog } from "./observability/request-log";
import { createRouteLabeler } from "./observability/route-label";
import { createSecurityHeaders } from "./edge/security-headers";
import type { Tracing } from "./observability/tracing";

type Options = {
  build: ServerBuild;
  config: Config;
  drain: RequestHandler;
  tracing?: Tracing;
  metrics?: Metrics;
  sharedRateLimit?: SharedRateLimitStore;
};

/** The HTTP pipeline: edge concerns first, then static files, then Remix. */
export function createApp({ build, config, drain, tracing, metrics, sharedRateLimit }: Options) {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Nothing reads req.query; Express would otherwise parse every query string with qs.
  app.set("query parser", false);
  // One proxy hop: the address it reports is the client's, anything further left is hearsay.
  if (config.TRUST_PROXY) app.set("trust proxy", 1);

  app.use(
    createRequestLog({
      trustProxy: config.TRUST_PROXY,
      recording: tracing !== undefined,
      getRoute: createRouteLabeler(build),
      observers: [metrics?.recordRequest, tracing?.recordRequest].filter((observe) => observe !== undefined),
    }),
  );
  app.use(drain);
  app.use(createSecurityHeaders(config));
  app.use(createEdge(config, { store: sharedRateLimit?.store, onRateLimited: metrics?.countRateLimited }));
  app.use(compression({ filter: (req, res) => res.statusCode < 400 && compression.filter(req, res) }));

  const publicDir = path.resolve("public");
  // Fingerprinted by the build, so they never change: cache for a year.
  app.use(
    "/build",
    markStatic,
    express.static(path.join(publicDir, "build"), {
      immutable: true,
      maxAge: "1y",
      index: false,
      redirect: false,
    }),
    plainNotFound,
  );
  app.use(servePublicFiles(publicDir));

  app.all(
    "*",
    createRemixHandler({
      build,
      mode: config.NODE_ENV,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      getLoadContext: (_req, res) => ({ cspNonce: res.locals.cspNonce }),
    }),
  );
  app.use(lastResort);
  return app;
}

/**
 * Other public files (favicon, robots.txt ...) with a short cache. They are listed once at
 * start, so a page request costs a set lookup rather than a file-system call; files are deployed
 * with the build, and a new one is served after a restart.
 */
function servePublicFiles(publicDir: string): RequestHandler {
  const files = new Set(
    readdirSync(publicDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map(
        (entry) =>
          "/" + path.relative(publicDir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"),
      )
      .filter((urlPath) => !urlPath.startsWith("/build/")),
  );
  const serveStatic = express.static(publicDir, { maxAge: "1h", index: false, redirect: false });
  return (req, res, next) => {
    if (!files.has(req.path)) return next();
    res.locals.route = STATIC_ROUTE;
    serveStatic(req, res, next);
  };
}

// Static files share one route label: their paths are many, and not routes.
const STATIC_ROUTE = "static";

const markStatic: RequestHandler = (_req, res, next) => {
  res.locals.route = STATIC_ROUTE;
  next();
};

// A missing asset may be deployed a moment later: no cache may keep its 404.
const plainNotFound: RequestHandler = (_req, res) => {
  res.status(404).set("Cache-Control", "no-store").type("text/plain").send(getError("NOT_FOUND").title);
};

/**
 * Answers what went wrong with the catalogue's page. Refusals (HttpError, or the 4xx status
 * Express gives e.g. a path with bad percent-encoding, or a static file's 412 and 416) keep their
 * status; anything else is a 500 whose details go to the log only. A client that left has no
 * one to answer: its request's log line says it was aborted.
 */
const lastResort: ErrorRequestHandler = (error, req, res, _next) => {
  if (error instanceof ClientGoneError) return void res.destroy();
  const refusal = error instanceof HttpError ? error : getRefusal(error);
  if (!refusal) {
    const traceId = parseTraceparent(req.headers.traceparent as string | undefined)?.traceId;
    logger.error({ err: error, requestId: res.getHeader("X-Request-Id"), traceId }, "request failed");
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendErrorPage(res, refusal?.code ?? "INTERNAL", error instanceof HttpError ? error.headers : {});
};

function getRefusal(error: unknown) {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && status >= 400 && status < 500 ? getErrorForStatus(status) : null;
}
