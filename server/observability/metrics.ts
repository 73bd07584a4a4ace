import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { onCallOutcome } from "~/api/client.server";
import type { Config } from "~/lib/config.server";
import { logger } from "~/lib/logger.server";
import { ALLOWED_METHODS } from "../edge/request-checks";
import { createHttpServer } from "../process/http-server";
import { countInFlight } from "./request-context";
import type { FinishedRequest } from "./request-log";

export type Metrics = {
  recordRequest(request: FinishedRequest): void;
  countRateLimited(): void;
  countStoreError(): void;
  close(): Promise<void>;
};

/**
 * Prometheus metrics, served as text at `GET /metrics` on METRICS_PORT, never on the app's port;
 * undefined, with nothing started, when METRICS_PORT is unset. Every label has a bounded set of
 * values: route ids (or `static`, `refused`, `manifest`, `not_found`), catalogue codes, call names.
 */
export async function startMetrics(config: Config): Promise<Metrics | undefined> {
  if (config.METRICS_PORT === undefined) return undefined;
  // Loaded only when metrics are on, as tracing's SDK is.
  const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = await import("prom-client");
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const requestDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's end, by method, route and status",
    labelNames: ["method", "route", "status_code"],
    registers,
  });
  new Gauge({
    name: "http_requests_in_flight",
    help: "Requests being answered",
    registers,
    collect() {
      this.set(countInFlight());
    },
  });
  const refusals = new Counter({
    name: "http_edge_refusals_total",
    help: "Requests the server refused before Remix, by catalogue code (rate limiting apart)",
    labelNames: ["reason"],
    registers,
  });
  const rateLimited = new Counter({
    name: "http_rate_limited_total",
    help: "Writes refused for going over RATE_LIMIT_PER_MINUTE",
    registers,
  });
  const storeErrors = new Counter({
    name: "rate_limit_store_errors_total",
    help: "Writes let through uncounted because the shared rate limit store failed",
    registers,
  });
  const upstreamDuration = new Histogram({
    name: "upstream_request_duration_seconds",
    help: "Time a call to the API took, retries included, by call, method and outcome",
    labelNames: ["call", "method", "outcome"],
    registers,
  });
  const upstreamRetries = new Counter({
    name: "upstream_retries_total",
    help: "Retries of calls to the API: made (retry) or refused for want of budget (budget_exhausted)",
    labelNames: ["call", "method", "event"],
    registers,
  });

  const stopListening = onCallOutcome(({ call, method, outcome, durationMs }) => {
    if (outcome === "retry" || outcome === "budget_exhausted") {
      upstreamRetries.inc({ call, method, event: outcome });
    } else {
      upstreamDuration.observe({ call, method, outcome }, durationMs / 1000);
    }
  });

  const server = createHttpServer(config, (req, res) => {
    if (req.method !== "GET" || req.url !== "/metrics") return void res.writeHead(404).end();
    registry.metrics().then(
      (text) => res.writeHead(200, { "Content-Type": registry.contentType }).end(text),
      (error) => {
        logger.warn({ err: error }, "metrics could not be collected");
        res.writeHead(500).end();
      },
    );
  });
  const port = await listen(server, config.METRICS_PORT, config.HOST);
  logger.info({ port }, `metrics on http://localhost:${port}/metrics`);

  return {
    recordRequest({ method, route, status, start, refusal }) {
      if (refusal && refusal !== "RATE_LIMITED" && status < 500) refusals.inc({ reason: refusal });
      const labels = { method: KNOWN_METHODS.has(method) ? method : "other", route, status_code: status };
      requestDuration.observe(labels, (performance.now() - start) / 1000);
    },
    countRateLimited: () => rateLimited.inc(),
    countStoreError: () => storeErrors.inc(),
    async close() {
      stopListening();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// A method the edge refuses still gets a label, one for all of them.
const KNOWN_METHODS = new Set(ALLOWED_METHODS);

function listen(server: Server, port: number, host: string | undefined) {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host }, () => resolve((server.address() as AddressInfo).port));
  });
}
