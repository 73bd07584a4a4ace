import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerBuild } from "@remix-run/node";
import type { RequestHandler } from "express";
import { onCallOutcome } from "~/api/call-outcomes.server";
import type { Config } from "~/lib/config.server";
import { logger } from "~/lib/logger.server";
import { createRouteNamer } from "./route-names";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express types res.locals through this namespace
  namespace Express {
    interface Locals {
      /** The route the request was handed to Remix for (route-names.ts), for metrics. */
      route?: string;
    }
  }
}

export type Metrics = {
  /** First in the pipeline: counts the request in flight and times it, labelled when it ends. */
  track: RequestHandler;
  /** Right before Remix: names the route that answers. */
  nameRoute: RequestHandler;
  countRateLimitStoreError(): void;
  close(): Promise<void>;
};

// Any other method (Node's parser knows a few dozen) is one label value.
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]);
// Reported along a call's way, not as its end: counted, not timed.
const CALL_EVENTS = new Set(["retry", "budget_exhausted"]);

/**
 * Prometheus metrics, served at /metrics on METRICS_PORT (on HOST) by a server of their own,
 * never on the public port; or undefined, having loaded nothing, when METRICS_PORT is unset.
 * Every label comes from a short fixed list (methods, route ids, catalogue codes, call names
 * and outcomes), never from what a visitor sends, so the number of series stays bounded.
 */
export async function startMetrics(config: Config, build: ServerBuild): Promise<Metrics | undefined> {
  if (config.METRICS_PORT === undefined) return undefined;
  const prom = await import("prom-client");
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requestDuration = new prom.Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's end, by route (or static, refused)",
    labelNames: ["method", "route", "status_code"],
    registers,
  });
  const inFlight = new prom.Gauge({
    name: "http_requests_in_flight",
    help: "Requests being answered",
    registers,
  });
  const refusals = new prom.Counter({
    name: "http_edge_refusals_total",
    help: "Requests the server refused before Remix, by the catalogue's code",
    labelNames: ["reason"],
    registers,
  });
  const rateLimited = new prom.Counter({
    name: "http_rate_limited_total",
    help: "Writes refused by the rate limit",
    registers,
  });
  const storeErrors = new prom.Counter({
    name: "rate_limit_store_errors_total",
    help: "Writes let through uncounted because the rate limit's store was unreachable",
    registers,
  });
  const upstreamDuration = new prom.Histogram({
    name: "upstream_request_duration_seconds",
    help: "Time a call to the API took, retries included, by how it ended",
    labelNames: ["call", "method", "outcome"],
    registers,
  });
  const callEvents = new prom.Counter({
    name: "upstream_call_events_total",
    help: "Retries made, and retries refused for want of budget, by call",
    labelNames: ["call", "outcome"],
    registers,
  });

  const stopListening = onCallOutcome(({ call, method, outcome, durationMs }) => {
    if (CALL_EVENTS.has(outcome)) callEvents.inc({ call, outcome });
    else upstreamDuration.observe({ call, method, outcome }, durationMs / 1_000);
  });

  const track: RequestHandler = (req, res, next) => {
    const start = performance.now();
    inFlight.inc();
    res.once("close", () => {
      inFlight.dec();
      const refusal = res.statusCode < 500 ? res.locals.refusal : undefined;
      const route = refusal ? "refused" : (res.locals.route ?? "static");
      const method = METHODS.has(req.method) ? req.method : "other";
      requestDuration.observe(
        { method, route, status_code: res.statusCode },
        (performance.now() - start) / 1_000,
      );
      if (!refusal) return;
      refusals.inc({ reason: refusal });
      if (refusal === "RATE_LIMITED") rateLimited.inc();
    });
    next();
  };

  const getRouteName = createRouteNamer(build);
  const nameRoute: RequestHandler = (req, res, next) => {
    res.locals.route = getRouteName(req.path);
    next();
  };

  const server = await serveMetrics(config, registry);
  return {
    track,
    nameRoute,
    countRateLimitStoreError: () => storeErrors.inc(),
    close: async () => {
      stopListening();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type Registry = { metrics(): Promise<string>; contentType: string };

async function serveMetrics(config: Config, registry: Registry): Promise<Server> {
  const server = createServer((req, res) => {
    const path = req.url?.split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "Content-Type": registry.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, "metrics: collecting failed");
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: config.METRICS_PORT, host: config.HOST }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ port, host: config.HOST ?? "all interfaces" }, `metrics on http://localhost:${port}/metrics`);
  return server;
}
