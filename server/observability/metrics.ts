import type { RequestListener } from "node:http";
import type { Histogram as VitalHistogram } from "prom-client";
import type { Config } from "~/lib/config.server";
import type { AppEntry } from "../app";
import { ALLOWED_METHODS } from "../edge/checks";
import type { ReportSink, VitalName } from "../edge/report-endpoints";
import type { FinishedRequest } from "./request-log";

// Methods the edge refuses share one label.
const KNOWN_METHODS = new Set(ALLOWED_METHODS);
// Buckets on the published thresholds (good, needs improvement, poor), in seconds but for CLS.
const VITAL_HISTOGRAMS: Record<VitalName, { name: string; buckets: number[]; scale: number }> = {
  LCP: { name: "web_vitals_lcp_seconds", buckets: [2.5, 4], scale: 1_000 },
  INP: { name: "web_vitals_inp_seconds", buckets: [0.2, 0.5], scale: 1_000 },
  CLS: { name: "web_vitals_cls", buckets: [0.1, 0.25], scale: 1 },
  FCP: { name: "web_vitals_fcp_seconds", buckets: [1.8, 3], scale: 1_000 },
  TTFB: { name: "web_vitals_ttfb_seconds", buckets: [0.8, 1.8], scale: 1_000 },
};

/** Prometheus metrics for METRICS_PORT (`handle`), labelled with bounded values; undefined when unset. */
export async function startMetrics(config: Config, app: AppEntry, countInFlight: () => number) {
  const { logger, onCallOutcome } = app;
  if (config.METRICS_PORT === undefined) return undefined;
  const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } =
    await import("prom-client");
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

  const violations = new Counter({
    name: "csp_violations_total",
    help: "Content-Security-Policy violations browsers reported, by directive and what was blocked",
    labelNames: ["directive", "blocked"],
    registers,
  });
  const reportsRefused = new Counter({
    name: "browser_reports_refused_total",
    help: "CSP reports and web vitals refused, by endpoint (csp, vitals) and reason",
    labelNames: ["endpoint", "reason"],
    registers,
  });
  const vitals = Object.fromEntries(
    Object.entries(VITAL_HISTOGRAMS).map(([vital, { name, buckets }]) => [
      vital,
      new Histogram({
        name,
        help: `${vital} of page loads, by route`,
        labelNames: ["route"],
        buckets,
        registers,
      }),
    ]),
  ) as Record<VitalName, VitalHistogram<"route">>;
  const reports: ReportSink = {
    countViolation: (directive, blocked) => violations.inc({ directive, blocked }),
    observeVitals: (route, values) => {
      for (const [vital, value] of values)
        vitals[vital].observe({ route }, value / VITAL_HISTOGRAMS[vital].scale);
    },
    countRefused: (endpoint, reason) => reportsRefused.inc({ endpoint, reason }),
  };

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
      const labels = {
        method: KNOWN_METHODS.has(method) ? method : "other",
        route,
        status_code: status,
      };
      requestDuration.observe(labels, (performance.now() - start) / 1000);
    },
    countRateLimited: () => rateLimited.inc(),
    countStoreError: () => storeErrors.inc(),
    reports,
    stop: stopListening,
  };
}
