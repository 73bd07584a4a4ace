import path from "node:path";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import { getErrorForStatus } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { parseTraceparent } from "~/lib/trace-context.server";
import { createRequestLog, type FinishedRequest } from "./observability/request-log";
import { createEdge, type WriteLimit } from "./edge/checks";
import { createReportEndpoints, type ReportSink } from "./edge/report-endpoints";
import { sendErrorPage } from "./edge/error-page";
import { createSecurityHeaders } from "./edge/security-headers";
import { serveStaticFiles } from "./static/static-files";
import { createRemixHandler } from "./remix/remix-handler";

type Options = {
  build: ServerBuild;
  config: Config;
  recording?: boolean;
  observers?: ((request: FinishedRequest) => void)[];
  writeLimit?: WriteLimit;
  reports?: ReportSink;
  maxHeaderCount: number;
  isShuttingDown?: () => boolean;
};

const READINESS_PATH = /^\/readyz\/?$/i;

/** The HTTP pipeline, in the order a request meets it: observability, the edge, reports, static files, Remix. */
export function createApp({
  build,
  config,
  recording = false,
  observers = [],
  writeLimit = {},
  reports,
  maxHeaderCount,
  isShuttingDown = () => false,
}: Options) {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", false);
  if (config.TRUST_PROXY) app.set("trust proxy", 1);

  // From SIGTERM on, not ready whatever the API says: the balancer lets go while we still serve.
  const readiness: RequestHandler = (req, res, next) => {
    if (!READINESS_PATH.test(req.path) || !["GET", "HEAD"].includes(req.method) || !isShuttingDown())
      return next();
    res.set("Cache-Control", "no-store").status(503).json({ status: "unavailable", reason: "shutting down" });
  };
  app.use(
    createRequestLog({ build, trustProxy: config.TRUST_PROXY, recording, observers }),
    createSecurityHeaders(config),
    createEdge(config, build, maxHeaderCount, writeLimit),
    readiness,
    createReportEndpoints(config, build, reports),
    serveStaticFiles(path.resolve("public"), config),
    compression({ filter: (req, res) => res.statusCode < 400 && compression.filter(req, res) }),
    createRemixHandler(build, config),
    lastResort,
  );
  return app;
}

/** The catalogue's page for what went wrong: a 4xx keeps its status, anything else is a 500 logged here only. */
const lastResort: ErrorRequestHandler = (error, req, res, _next) => {
  const status = (error as { status?: unknown } | null)?.status;
  const refusal =
    typeof status === "number" && status >= 400 && status < 500 ? getErrorForStatus(status) : null;
  if (!refusal) {
    const traceId = parseTraceparent(req.headers.traceparent as string | undefined)?.traceId;
    logger.error({ err: error, requestId: res.getHeader("X-Request-Id"), traceId }, "request failed");
  }
  if (res.headersSent) return void res.destroy();
  sendErrorPage(res, refusal?.code ?? "INTERNAL");
};
