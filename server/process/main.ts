import path from "node:path";
import { pathToFileURL } from "node:url";
import { broadcastDevReady, type ServerBuild } from "@remix-run/node";
import { generatedSecret, getConfig } from "~/lib/config.server";
import { logger, routeConsoleToLogger } from "~/lib/logger.server";
import { createApp } from "../app";
import { handleClientError, refuseConnect } from "../edge/client-error";
import { createDrain } from "./drain";
import { createHttpServer } from "./http-server";
import { limitPipelining } from "../edge/pipelining";
import { describeInFlight } from "../observability/request-context";
import { startMetrics } from "../observability/metrics";
import { startSharedRateLimitStore } from "../edge/rate-limit-store";
import { startTracing } from "../observability/tracing";

const config = getConfig();
if (config.NODE_ENV === "production") routeConsoleToLogger();

process.on("uncaughtException", (error) => crash(error, "uncaught exception"));
process.on("unhandledRejection", (reason) => crash(reason, "unhandled rejection"));

// A process that hit an error nobody handled is in an unknown state: log it and stop, and let
// the supervisor start a fresh one.
function crash(error: unknown, kind: string) {
  logger.fatal({ err: error, ...describeInFlight() }, kind);
  process.exit(1);
}

if (generatedSecret) {
  logger.warn(
    "SESSION_SECRET is not set: using a random one, so cookies will not survive a restart or be shared between instances",
  );
}

const buildPath = path.resolve("build/index.js");
const build = (await import(pathToFileURL(buildPath).href)) as ServerBuild;

const [tracing, metrics] = await Promise.all([startTracing(config), startMetrics(config)]);
const sharedRateLimit =
  config.RATE_LIMIT_REDIS_URL && config.RATE_LIMIT_PER_MINUTE > 0
    ? await startSharedRateLimitStore(config.RATE_LIMIT_REDIS_URL, () => metrics?.countStoreError())
    : undefined;
const drain = createDrain();
const app = limitPipelining(createApp({ build, config, drain, tracing, metrics, sharedRateLimit }));

const server = createHttpServer(config, app);
server.on("clientError", handleClientError);
server.on("connect", refuseConnect);
// The edge judges a request before its client is told to send the body, and answers any other
// expectation itself (Node would send 100 Continue, or a bare 417).
server.on("checkContinue", app);
server.on("checkExpectation", app);

server.listen({ port: config.PORT, host: config.HOST }, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  logger.info({ port, host: config.HOST ?? "all interfaces" }, `listening on http://localhost:${port}`);
  if (config.NODE_ENV === "development") broadcastDevReady(build);
  // A supervisor that started this process with an IPC channel (the test harness) learns the
  // port from this message rather than from the log.
  process.send?.({ type: "listening", port });
});

let shuttingDown = false;

// Endpoints may route here for a while after SIGTERM (Kubernetes removes the pod from them
// while it signals it): keep serving, not ready, for SHUTDOWN_DELAY_MS, then drain.
function shutdown(signal: NodeJS.Signals) {
  if (shuttingDown) return;
  shuttingDown = true;
  drain.withdraw();
  if (config.SHUTDOWN_DELAY_MS === 0) return stop(signal);
  logger.info({ signal, delayMs: config.SHUTDOWN_DELAY_MS }, "shutting down: not ready, still serving");
  setTimeout(stop, config.SHUTDOWN_DELAY_MS, signal);
}

function stop(signal: NodeJS.Signals) {
  logger.info({ signal }, "shutting down: finishing in-flight requests");
  const deadline = setTimeout(() => {
    logger.warn({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "shutdown timeout: closing remaining connections");
    server.closeAllConnections();
    process.exit(0);
  }, config.SHUTDOWN_TIMEOUT_MS);
  deadline.unref();
  server.close(async () => {
    await Promise.all([
      tracing?.shutdown().catch((error) => logger.warn({ err: error }, "spans not sent")),
      metrics?.close(),
      sharedRateLimit?.close(),
    ]);
    logger.info("stopped");
    process.exit(0);
  });
  drain.start(server);
}

process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
