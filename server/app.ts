import path from "node:path";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import type * as entry from "~/entry.server";
import type { Config } from "~/lib/config.server";
import { getErrorForStatus } from "~/lib/errors";
import { createRequestLog, type FinishedRequest } from "./observability/request-log";
import { createEdge, type WriteLimit } from "./edge/checks";
import { createCspEndpoint } from "./edge/csp-reports";
import { createVitalsEndpoint, type ReportSink } from "./edge/report-endpoints";
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
  /** What `npm run dev` adds before Remix (server/dev.ts): none in production. */
  developmentSteps?: RequestHandler[];
};

/** What the server takes from the Remix build (`build.entry.module`): the app's configuration,
 * logger and call outcomes, each loaded once. What else of app/ it imports keeps no state. */
export type AppEntry = typeof entry;

const READINESS_PATH = /^\/readyz\/?$/i;

/** The pipeline, in the order a request meets it: observability, the edge, reports, static files,
 * Remix. */
export function createApp({
  build,
  config,
  recording = false,
  observers = [],
  writeLimit = {},
  reports,
  maxHeaderCount,
  isShuttingDown = () => false,
  developmentSteps = [],
}: Options) {
  const entry = build.entry.module as unknown as AppEntry;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", false);
  if (config.TRUST_PROXY) app.set("trust proxy", 1);

  // From SIGTERM on, not ready whatever the API says: the balancer lets go while we still serve.
  const readiness: RequestHandler = (req, res, next) => {
    if (
      !READINESS_PATH.test(req.path) ||
      !["GET", "HEAD"].includes(req.method) ||
      !isShuttingDown()
    )
      return next();
    res
      .set("Cache-Control", "no-store")
      .status(503)
      .json({ status: "unavailable", reason: "shutting down" });
  };
  app.use(
    createRequestLog({ build, trustProxy: config.TRUST_PROXY, recording, observers }),
    createSecurityHeaders(config),
    createEdge(config, build, maxHeaderCount, writeLimit),
    readiness,
    createCspEndpoint(config, build, reports),
    createVitalsEndpoint(build, reports),
    serveStaticFiles(path.resolve("public"), config, entry.logger),
    // A 304 varies as the page it stands for, which this step compresses (RFC 9110 §15.4.5).
    compression({
      filter: (req, res) =>
        res.statusCode === 304 || (res.statusCode < 400 && compression.filter(req, res)),
    }),
    ...developmentSteps,
    createRemixHandler(build, config),
    lastResort(entry),
  );
  return app;
}

/** The catalogue's page for what went wrong: a 4xx keeps its status, else a 500, logged only. */
const lastResort =
  ({ logger, traceContext }: AppEntry): ErrorRequestHandler =>
  (error, req, res, _next) => {
    const status = (error as { status?: unknown } | null)?.status;
    const isRefusal = typeof status === "number" && status >= 400 && status < 500;
    const refusal = isRefusal ? getErrorForStatus(status) : null;
    if (!refusal) {
      const traceparent = req.headers.traceparent as string | undefined;
      const traceId = traceContext.parseTraceparent(traceparent)?.traceId;
      const requestId = res.getHeader("X-Request-Id");
      logger.error({ err: error, requestId, traceId }, "request failed");
    }
    if (res.headersSent) return void res.destroy();
    sendErrorPage(res, refusal?.code ?? "INTERNAL");
  };
