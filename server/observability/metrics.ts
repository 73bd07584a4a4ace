import type { RequestListener } from "node:http";
import type { Config } from "~/lib/config.server";
import type { AppEntry } from "../app";
import { ALLOWED_METHODS } from "../edge/checks";
import type { FinishedRequest } from "./request-log";

// Methods the edge refuses share one label.
const KNOWN_METHODS = new Set(ALLOWED_METHODS);

/** Prometheus metrics for METRICS_PORT (`handle`), labelled with bounded values; undefined when unset. */
export async function startMetrics(config: Config, app: AppEntry, countInFlight: () => number) {
  const { logger, onCallOutcome } = app;
  if (config.METRICS_PORT === undefined) return undefined;
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

  const handle: RequestListener = (req, res) => {
    if (req.method !== "GET" || req.url !== "/metrics") return void res.writeHead(404).end();
    registry.metrics().then(
      (text) => res.writeHead(200, { "Content-Type": registry.contentType }).end(text),
      (error) => {
        logger.warn({ err: error }, "metrics could not be collected");
        res.writeHead(500).end();
      },
    );
  };

  return {
    handle,
    recordRequest({ method, route, status, start, refusal }: FinishedRequest) {
      if (refusal && refusal !== "RATE_LIMITED" && status < 500) refusals.inc({ reason: refusal });
      const labels = { method: KNOWN_METHODS.has(method) ? method : "other", route, status_code: status };
      requestDuration.observe(labels, (performance.now() - start) / 1000);
    },
    countRateLimited: () => rateLimited.inc(),
    countStoreError: () => storeErrors.inc(),
    stop: stopListening,
  };
}
