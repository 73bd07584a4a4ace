import type { Server } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { broadcastDevReady } from "@remix-run/node";
import type { RequestHandler } from "express";
import { createApp } from "../app";
import { startRateLimitStore } from "../edge/rate-limit";
import { startMetrics } from "../observability/metrics";
import { startTracing } from "../observability/tracing";
import type * as BuildModule from "./build";
import { createConnections, MAX_HEADER_COUNT } from "./connections";
import { takeListenFd } from "./listen-fds";

/**
 * Takes the socket a service manager handed over, if any, and loads the Remix build, which reads
 * the configuration (a bad setting is one line and exit code 1), then starts everything configured
 * and listens. `npm run dev` (server/dev.ts) adds its development steps (the API mock's page)
 * before Remix.
 */
export async function startServer({
  developmentSteps = [],
}: { developmentSteps?: RequestHandler[] } = {}) {
  let loaded: typeof BuildModule;
  let listenFd: number | undefined;
  try {
    listenFd = takeListenFd();
    loaded = await import("./build");
    loaded.app.getConfig();
  } catch (error) {
    if (!(error instanceof Error && error.name === "ConfigError")) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const { app: entry, build } = loaded;
  const { logger } = entry;
  const config = entry.getConfig();
  if (config.NODE_ENV === "production") entry.routeConsoleToLogger();
  const connections = createConnections(config, logger);
  let shuttingDown = false;

  // An error nobody handled leaves the process in an unknown state: the supervisor starts a fresh one.
  const crash = (kind: string) => (error: unknown) => {
    logger.fatal({ err: error, ...connections.describeInFlight() }, kind);
    process.exit(1);
  };
  process.on("uncaughtException", crash("uncaught exception"));
  process.on("unhandledRejection", crash("unhandled rejection"));

  if (config.sessionSecretGenerated) {
    logger.warn(
      "SESSION_SECRET is not set: using a random one, so cookies will not survive a restart or be shared between instances",
    );
  }

  const [tracing, metrics] = await Promise.all([
    startTracing(config, entry),
    startMetrics(config, entry, connections.countInFlight),
  ]);
  const metricsServer = metrics && connections.createMetricsServer(metrics.handle);
  const metricsPort =
    metricsServer &&
    (await listen(metricsServer, { port: config.METRICS_PORT!, host: config.HOST }));
  if (metricsPort !== undefined)
    logger.info({ port: metricsPort }, `metrics on http://localhost:${metricsPort}/metrics`);
  const rateLimitStore =
    config.RATE_LIMIT_REDIS_URL && config.RATE_LIMIT_PER_MINUTE > 0
      ? await startRateLimitStore(config.RATE_LIMIT_REDIS_URL, entry, () =>
          metrics?.countStoreError(),
        )
      : undefined;

  const app = createApp({
    build,
    config,
    maxHeaderCount: MAX_HEADER_COUNT,
    isShuttingDown: () => shuttingDown,
    recording: tracing !== undefined,
    observers: [metrics?.recordRequest, tracing?.recordRequest].filter(
      (observe) => observe !== undefined,
    ),
    writeLimit: { store: rateLimitStore?.store, onRateLimited: metrics?.countRateLimited },
    reports: metrics?.reports,
    developmentSteps,
  });
  const server = connections.createAppServer(app);

  // SIGTERM or SIGINT: not ready but serving, with Connection: close, for SHUTDOWN_DELAY_MS while
  // endpoints let go, then drain and exit 0, or 1 past the deadline. A repeated signal changes
  // nothing (decision 024).
  for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
    process.on(name, (signal) => void shutDown(signal));

  async function shutDown(signal: NodeJS.Signals) {
    if (shuttingDown) {
      return void logger.info(
        { signal },
        "shutting down already: the signal changes nothing (SIGKILL stops at once)",
      );
    }
    shuttingDown = true;
    connections.stopKeepingAlive();
    setTimeout(() => {
      logger.warn({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "shutdown timeout: exiting");
      process.exit(1);
    }, config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS);
    if (config.SHUTDOWN_DELAY_MS > 0) {
      logger.info(
        { signal, delayMs: config.SHUTDOWN_DELAY_MS },
        "shutting down: not ready, still serving",
      );
      await sleep(config.SHUTDOWN_DELAY_MS);
    }
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    const closed = new Promise((resolve) => server.close(resolve));
    connections.drain(server);
    await closed;
    await Promise.all([
      tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, "spans not sent")),
      metrics?.stop(),
      metricsServer && new Promise((resolve) => metricsServer.close(resolve)),
      rateLimitStore?.close(),
    ]);
    logger.info("stopped");
    process.exit(0);
  }

  const port = await listen(
    server,
    listenFd === undefined ? { port: config.PORT, host: config.HOST } : { fd: listenFd },
  );
  logger.info(
    { port, host: config.HOST ?? "all interfaces" },
    `listening on http://localhost:${port}`,
  );
  if (config.NODE_ENV === "development") void broadcastDevReady(build);
  // A parent may have closed the channel it handed over: it is then told nothing.
  process.send?.({ type: "listening", port, metricsPort }, undefined, undefined, () => {});
}

function listen(on: Server, at: { port: number; host?: string } | { fd: number }) {
  return new Promise<number>((resolve, reject) => {
    on.once("error", reject);
    on.listen(at, () => {
      const address = on.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
}
