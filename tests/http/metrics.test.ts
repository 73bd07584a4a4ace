import { randomUUID } from "node:crypto";
import { errorCatalogue } from "~/lib/errors";
import { getHeading } from "../support/html";
import { beforeAll, describe, expect, it } from "vitest";
import { getMetricsUrl, scrape, sumOf, type Sample } from "../support/metrics";
import { sendRaw } from "../support/raw-http";
import { loadedModulesOptions, readLoadedModules } from "../support/read-loaded-modules";
import { startServer, startSuiteServer, type RunningServer } from "../support/server";
import { getClosedPort, sendJson, startUpstream, type Upstream } from "../support/upstream";
import { buildUpstreamApp, upstreamAppBuild } from "../support/upstream-app";

// Metrics on their own port after some traffic of every kind: pages, static files, unknown
// addresses, refusals, a rate-limited write, and calls that end well, with a mapped 404 and
// after retries. Every label comes from a fixed list, never from the request.

const CALL = "GET /things/:id";
const RANDOM_PATHS = 200;

let api: Upstream;

beforeAll(async () => {
  await buildUpstreamApp();
  api = await startUpstream();
  return () => api.close();
});

async function visit(server: RunningServer, path: string, init: RequestInit = {}) {
  const response = await fetch(server.url + path, { redirect: "manual", ...init });
  await response.arrayBuffer();
  return response.status;
}

const postTheme = (server: RunningServer, headers: Record<string, string> = {}) =>
  visit(server, "/preferences/theme", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: "theme=dark&redirectTo=/",
  });

const seriesOf = (samples: Sample[], name: string) => samples.filter((s) => s.name === name);

describe("a server with METRICS_PORT", () => {
  const server = startSuiteServer({ METRICS_PORT: "0", RATE_LIMIT_PER_MINUTE: "2" });
  let samples: Sample[];
  const randomPaths = Array.from({ length: RANDOM_PATHS }, () => `/${randomUUID()}/${randomUUID()}`);

  beforeAll(async () => {
    expect(await visit(server, "/")).toBe(200);
    expect(await visit(server, "/favicon.svg")).toBe(200);
    for (let i = 0; i < randomPaths.length; i += 20) {
      const statuses = await Promise.all(randomPaths.slice(i, i + 20).map((p) => visit(server, p)));
      expect(new Set(statuses)).toEqual(new Set([404]));
    }
    const propfind = await sendRaw(
      server.port,
      "PROPFIND / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    expect(propfind.status).toBe(405);
    expect(await postTheme(server, { "sec-fetch-site": "cross-site" })).toBe(403);
    expect([await postTheme(server), await postTheme(server), await postTheme(server)]).toEqual([
      303, 303, 429,
    ]);
    const metricsUrl = await getMetricsUrl(server);
    await scrape(metricsUrl);
    const start = performance.now();
    samples = await scrape(metricsUrl);
    const scrapeMs = (performance.now() - start).toFixed(1);
    const requestSeries = seriesOf(samples, "http_request_duration_seconds_count").length;
    console.log(
      `scrape after ${RANDOM_PATHS + 7} requests: ${samples.length} samples, ${requestSeries} request series, ${scrapeMs} ms`,
    );
  });

  it("times requests by route id, with fixed names for static files and refusals", () => {
    const count = (labels: Record<string, string>) =>
      sumOf(samples, "http_request_duration_seconds_count", labels);
    expect(count({ method: "GET", route: "routes/_site._index", status_code: "200" })).toBe(1);
    expect(count({ method: "GET", route: "static", status_code: "200" })).toBe(1);
    expect(count({ method: "other", route: "refused", status_code: "405" })).toBe(1);
    expect(count({ method: "POST", route: "refused", status_code: "403" })).toBe(1);
    expect(count({ method: "POST", route: "routes/_site.preferences.theme", status_code: "303" })).toBe(2);
    expect(count({ method: "POST", route: "refused", status_code: "429" })).toBe(1);
  });

  it("puts 200 unknown addresses in one series, and no path in any label", () => {
    const notFound = seriesOf(samples, "http_request_duration_seconds_count").filter(
      (s) => s.labels.status_code === "404",
    );
    expect(notFound).toEqual([
      {
        name: "http_request_duration_seconds_count",
        labels: expect.objectContaining({ method: "GET", route: "routes/_site.$" }),
        value: RANDOM_PATHS,
      },
    ]);
    const labelValues = samples.flatMap((s) => Object.values(s.labels));
    for (const value of labelValues) expect(value).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(seriesOf(samples, "http_request_duration_seconds_count").length).toBeLessThan(10);
  });

  it("counts refusals by the catalogue's code, and rate-limited writes", () => {
    expect(sumOf(samples, "http_edge_refusals_total", { reason: "METHOD_NOT_ALLOWED" })).toBe(1);
    expect(sumOf(samples, "http_edge_refusals_total", { reason: "CROSS_SITE_REQUEST" })).toBe(1);
    expect(sumOf(samples, "http_edge_refusals_total", { reason: "RATE_LIMITED" })).toBe(1);
    expect(seriesOf(samples, "http_edge_refusals_total")).toHaveLength(3);
    expect(sumOf(samples, "http_rate_limited_total")).toBe(1);
    expect(seriesOf(samples, "http_requests_in_flight")).toHaveLength(1);
    expect(seriesOf(samples, "rate_limit_store_errors_total")).toEqual([
      expect.objectContaining({ value: 0 }),
    ]);
  });

  it("reports the event loop's delay and Node's process metrics", () => {
    for (const name of [
      "nodejs_eventloop_lag_p99_seconds",
      "nodejs_eventloop_lag_seconds",
      "process_cpu_user_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_heap_size_used_bytes",
    ]) {
      expect(seriesOf(samples, name).length, name).toBeGreaterThan(0);
    }
  });

  it("serves nothing else on the metrics port, and no metrics on the public one", async () => {
    const metricsUrl = await getMetricsUrl(server);
    expect((await fetch(metricsUrl.replace("/metrics", "/"))).status).toBe(404);
    const publicMetrics = await fetch(`${server.url}/metrics`);
    expect(publicMetrics.status).toBe(404);
    expect(getHeading(await publicMetrics.text())).toBe(errorCatalogue.NOT_FOUND.title);
  });
});

describe("a server with METRICS_PORT making calls", () => {
  const server = startSuiteServer(() => ({ API_BASE_URL: api.url, METRICS_PORT: "0" }), {
    cwd: upstreamAppBuild,
    expectedStatuses: [503],
  });

  it("times calls by name, method and outcome, and counts their retries apart", async () => {
    api.handle((_req, res) => sendJson(res, 200, { id: "1", name: "A thing" }));
    expect(await visit(server, "/call/1")).toBe(200);
    api.handle((_req, res) => sendJson(res, 404, {}));
    expect(await visit(server, "/call/1")).toBe(404);
    api.handle((_req, res) => res.writeHead(503).end());
    expect(await visit(server, "/call/1")).toBe(503);
    const samples = await scrape(await getMetricsUrl(server));

    const calls = (outcome: string) =>
      sumOf(samples, "upstream_request_duration_seconds_count", { call: CALL, method: "GET", outcome });
    expect([calls("ok"), calls("404"), calls("unavailable")]).toEqual([1, 1, 1]);
    expect(seriesOf(samples, "upstream_request_duration_seconds_count")).toHaveLength(3);
    expect(sumOf(samples, "upstream_call_events_total", { call: CALL, outcome: "retry" })).toBeGreaterThan(0);
    const route = { method: "GET", route: "routes/_site.call.$id" };
    expect(sumOf(samples, "http_request_duration_seconds_count", route)).toBe(3);
  });

  it("names a path no route matches not_found (this build has no catch-all route)", async () => {
    expect(await visit(server, `/${randomUUID()}`)).toBe(404);
    const samples = await scrape(await getMetricsUrl(server));
    const labels = { method: "GET", route: "not_found", status_code: "404" };
    expect(sumOf(samples, "http_request_duration_seconds_count", labels)).toBe(1);
  });
});

describe("a server without METRICS_PORT", () => {
  const server = startSuiteServer({ NODE_OPTIONS: loadedModulesOptions });

  it("serves no metrics and loads neither prom-client nor a Redis client", async () => {
    expect(await visit(server, "/")).toBe(200);
    expect(server.output()).not.toContain("metrics on");
    const files = await readLoadedModules(server);
    expect(files.filter((file) => /\/(prom-client|@redis)\//.test(file))).toEqual([]);
    expect(files.length).toBeGreaterThan(10);
  });
});

describe("shutting down", () => {
  it("closes the metrics port with the server, while Redis is still being looked for", async () => {
    const redisUrl = `redis://127.0.0.1:${await getClosedPort()}`;
    const server = await startServer({ METRICS_PORT: "0", RATE_LIMIT_REDIS_URL: redisUrl });
    const metricsUrl = await getMetricsUrl(server);
    expect((await fetch(metricsUrl)).status).toBe(200);
    const start = performance.now();
    expect(await server.stop("SIGTERM")).toBe(0);
    console.log(`stopped in ${(performance.now() - start).toFixed(0)} ms`);
    expect(server.stdout()).toContain('"msg":"stopped"');
    await expect(fetch(metricsUrl)).rejects.toThrow();
  });
});
