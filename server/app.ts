import { readdirSync } from "node:fs";
import path from "node:path";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import { getError, getErrorForStatus } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { createEdge, getOwnOrigin } from "./edge";
import { sendErrorPage } from "./error-page";
import { HttpError } from "./http-error";
import { createRemixHandler } from "./remix-handler";
import { requestLog } from "./request-log";
import { createSecurityHeaders } from "./security-headers";

type Options = { build: ServerBuild; config: Config; state: { shuttingDown: boolean } };

/** The HTTP pipeline: edge concerns first, then static files, then Remix. */
export function createApp({ build, config, state }: Options) {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // One proxy hop: the address it reports is the client's, anything further left is hearsay.
  if (config.TRUST_PROXY) app.set("trust proxy", 1);

  app.use(requestLog);
  app.use(closeConnectionsWhen(state));
  app.use(createSecurityHeaders(config));
  app.use(createEdge(config));
  app.use(compression());

  const publicDir = path.resolve("public");
  // Fingerprinted by the build, so they never change: cache for a year.
  app.use(
    "/build",
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
      getOrigin: (req) => getOwnOrigin(req, config),
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
  return (req, res, next) => (files.has(req.path) ? serveStatic(req, res, next) : next());
}

const plainNotFound: RequestHandler = (_req, res) => {
  res.status(404).type("text/plain").send(getError("NOT_FOUND").title);
};

function closeConnectionsWhen(state: { shuttingDown: boolean }): RequestHandler {
  return (_req, res, next) => {
    // Lets keep-alive clients go elsewhere once this instance is draining.
    if (state.shuttingDown) res.setHeader("Connection", "close");
    next();
  };
}

/**
 * Answers what went wrong with the catalogue's page. Refusals (HttpError, or the 4xx status
 * Express gives e.g. a path with bad percent-encoding) keep their status; anything else is a
 * 500 whose details go to the log only.
 */
const lastResort: ErrorRequestHandler = (error, _req, res, _next) => {
  const refusal = error instanceof HttpError ? error : getRefusal(error);
  if (!refusal) logger.error({ err: error, requestId: res.getHeader("X-Request-Id") }, "request failed");
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
