import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { scrapeMetrics, total } from "../support/metrics";
import { loadedModulesOptions, readLoadedModules } from "../support/read-loaded-modules";
import { startServer, startSuiteServer } from "../support/server";
import { sendJson, startUpstream, type Upstream } from "../support/upstream";
import { buildReferenceApp, referenceAppBuild } from "../support/reference-app";

// A scrape of METRICS_PORT after traffic of every kind: the series are there, and their labels
// stay few however many different paths visitors send.

let upstream: Upstream;

beforeAll(async () => {
  await buildReferenceApp();
  upstream = await startUpstream();
  return () => upstream.close();
});

describe("with METRICS_PORT set", () => {
  const server = startSuiteServer(
    () => ({ API_BASE_URL: upstream.url, METRICS_PORT: "0", RATE_LIMIT_PER_MINUTE: "2" }),
    { cwd: referenceAppBuild, expectedStatuses: [503] },
  );
  const scrape = () => scrapeMetrics(server);
  const visit = async (path: string, init?: RequestInit) =>
    (await fetch(server.url + path, init)).status;

  it("shows every request by method, route id and status, with as many routes as the app has", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { id: "1", name: "A thing" }));
    expect(await visit("/call/1")).toBe(200);
    expect(await visit("/call/1.data")).toBe(200);
    for (let i = 0; i < 200; i++) expect(await visit(`/${randomUUID()}/${i}`)).toBe(404);
    expect(await visit(`/build/${randomUUID()}.js`)).toBe(404);
    expect(await visit("/call/1", { method: "OPTIONS" })).toBe(405);
    expect(await visit("/call/1?_data=root")).toBe(400);
    // Remix's route discovery, asked by browsers as links come into view (204: another version).
    expect(await visit("/__manifest?p=%2Fcall%2F1&version=other")).toBe(204);
    const samples = await scrape();
    const count = (labels: Record<string, string>) =>
      total(samples, "http_request_duration_seconds_count", labels);
    expect(count({ method: "GET", route: "faults/call.$id", status_code: "200" })).toBe(2);
    // The app's splat route answers every unknown path, under one label.
    expect(count({ route: "routes/_site.$", status_code: "404" })).toBe(200);
    expect(count({ route: "static", status_code: "404" })).toBe(1);
    expect(count({ method: "GET", route: "manifest", status_code: "204" })).toBe(1);
    expect(count({ method: "other", route: "refused", status_code: "405" })).toBe(1);
    expect(total(samples, "http_edge_refusals_total", { reason: "METHOD_NOT_ALLOWED" })).toBe(1);
    expect(total(samples, "http_edge_refusals_total", { reason: "BAD_REQUEST" })).toBe(1);
    const routes = new Set(
      samples
        .filter((s) => s.name === "http_request_duration_seconds_count")
        .map((s) => s.labels.route),
    );
    console.log(
      `${routes.size} route labels after 200 different unknown paths: ${[...routes].join(", ")}`,
    );
    expect(routes.size).toBeLessThan(8);
  });

  it("shows each call by name, method and outcome, and its retries", async () => {
    upstream.handle((_req, res) => sendJson(res, 404, {}));
    expect(await visit("/call/missing")).toBe(404);
    upstream.handle((_req, res) => res.writeHead(503).end());
    expect(await visit("/call/1")).toBe(503);
    const samples = await scrape();
    const calls = (outcome: string) =>
      total(samples, "upstream_request_duration_seconds_count", {
        call: "GET /things/{id}",
        method: "GET",
        outcome,
      });
    expect(calls("ok")).toBe(2);
    expect(calls("404")).toBe(1);
    expect(calls("unavailable")).toBe(1);
    expect(
      total(samples, "upstream_retries_total", { call: "GET /things/{id}", event: "retry" }),
    ).toBeGreaterThan(0);
  });

  it("counts writes over the limit, and shows the process's own figures", async () => {
    const body = new URLSearchParams({ name: "x" });
    const post = () => visit("/faults/create", { method: "POST", body, redirect: "manual" });
    upstream.handle((_req, res) => sendJson(res, 201, { id: "1", name: "x" }));
    const statuses = [await post(), await post(), await post()];
    expect(statuses).toEqual([303, 303, 429]);
    const samples = await scrape();
    expect(total(samples, "http_rate_limited_total")).toBe(1);
    expect(total(samples, "http_edge_refusals_total", { reason: "RATE_LIMITED" })).toBe(0);
    const names = new Set(samples.map((sample) => sample.name));
    for (const name of [
      "http_requests_in_flight",
      "rate_limit_store_errors_total",
      "nodejs_eventloop_lag_p99_seconds",
      "process_cpu_seconds_total",
      "nodejs_heap_size_used_bytes",
    ])
      expect(names).toContain(name);
  });

  it("is never served on the app's own port", async () => {
    expect(await visit("/metrics")).toBe(404);
  });
});

describe("without METRICS_PORT", () => {
  const server = startSuiteServer(
    { NODE_OPTIONS: loadedModulesOptions },
    { cwd: referenceAppBuild },
  );

  it("serves no metrics anywhere, and loads neither prom-client nor a Redis client", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    expect(server.output()).not.toContain("/metrics");
    const files = await readLoadedModules(server);
    expect(files.filter((file) => /\/node_modules\/(prom-client|@redis)\//.test(file))).toEqual([]);
    expect(files.some((file) => file.includes("/node_modules/react-dom/"))).toBe(true);
  });
});

describe("shutting down", () => {
  it("closes the metrics port with the server, while Redis is still being looked for", async () => {
    const server = await startServer(
      { METRICS_PORT: "0", RATE_LIMIT_REDIS_URL: "unix:///nonexistent/redis.sock" },
      { cwd: referenceAppBuild },
    );
    const port = server.metricsPort;
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
