import path from "node:path";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/config.server";
import { getError } from "~/errors";
import { logger } from "~/logger.server";
import { HttpError } from "./http-error";
import { createRemixHandler } from "./remix-handler";
import { requestLog } from "./request-log";

type Options = { build: ServerBuild; config: Config; state: { shuttingDown: boolean } };

/** The HTTP pipeline: edge concerns first, then static files, then Remix. */
export function createApp({ build, config, state }: Options) {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  app.use(requestLog);
  app.use(closeConnectionsWhen(state));
  app.use(compression());

  const publicDir = path.resolve("public");
  // Fingerprinted by the build, so they never change: cache for a year.
  app.use(
    "/build",
    express.static(path.join(publicDir, "build"), { immutable: true, maxAge: "1y", index: false, redirect: false }),
    plainNotFound,
  );
  app.use(express.static(publicDir, { maxAge: "1h", index: false, redirect: false }));

  app.all("*", createRemixHandler({ build, mode: config.NODE_ENV, bodyLimitBytes: config.BODY_LIMIT_BYTES }));
  app.use(lastResort);
  return app;
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

const lastResort: ErrorRequestHandler = (error, req, res, _next) => {
  if (!(error instanceof HttpError)) {
    logger.error({ err: error, requestId: res.getHeader("X-Request-Id") }, "request failed");
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof HttpError) res.set(error.headers);
  const { status, title } = getError(error instanceof HttpError ? error.code : "INTERNAL");
  // A body we stopped reading cannot be skipped safely: end the connection with the answer.
  if (!req.complete) res.setHeader("Connection", "close");
  res.status(status).type("text/plain").send(title);
};
