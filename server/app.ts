import path from "node:path";
import compression from "compression";
import express, { type ErrorRequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import { getErrorForStatus } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { parseTraceparent } from "~/lib/trace-context.server";
import { createEdge } from "./edge/request-checks";
import type { Drain } from "./process/drain";
import type { Metrics } from "./observability/metrics";
import type { SharedRateLimitStore } from "./edge/rate-limit-store";
import { sendErrorPage } from "./edge/error-page";
import { ClientGoneError, HttpError } from "./edge/http-error";
import { createRemixHandler } from "./remix/remix-handler";
import { createRequestLog } from "./observability/request-log";
import { createRouteLabeler } from "./observability/route-label";
import { createSecurityHeaders } from "./edge/security-headers";
import { serveBuildFiles, servePublicFiles } from "./static/static-files";
import type { Tracing } from "./observability/tracing";

type Options = {
  build: ServerBuild;
  config: Config;
  drain: Pick<Drain, "track" | "readiness">;
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
  app.use(drain.track);
  app.use(createSecurityHeaders(config));
  app.use(
    createEdge(config, build, { store: sharedRateLimit?.store, onRateLimited: metrics?.countRateLimited }),
  );
  // From SIGTERM on, not ready whatever the API says: the balancer lets go while we still serve.
  app.get("/readyz", drain.readiness);
  const publicDir = path.resolve("public");
  app.use("/build", serveBuildFiles(path.join(publicDir, "build")));
  app.use(servePublicFiles(publicDir));
  // Pages only: static files are sent as the build compressed them, error pages as they are.
  app.use(compression({ filter: (req, res) => res.statusCode < 400 && compression.filter(req, res) }));

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
