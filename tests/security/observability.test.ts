import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askServer, getLogLines, startSuiteServer, type RunningServer } from "../support/server";
import { getClosedPort, sendJson, startUpstream, type Upstream } from "../support/upstream";

// What the server talks to besides its visitors (the API's health path, an OTLP collector, a
// metrics scraper) and what a trusted proxy passes on (trace context) may be hostile too.

const loopDelayScript = pathToFileURL(
  path.join(import.meta.dirname, "../support/loop-delay.js"),
).href;
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const figures: string[] = [];

let api: Upstream;

beforeAll(async () => {
  api = await startUpstream();
  return () => api.close();
});

afterAll(() => console.log(figures.join("\n")));

const readLoopDelay = (server: RunningServer) =>
  askServer<{ maxMs: number; heldCpuMs: number }>(server, "loop-delay");

async function readyz(server: RunningServer) {
  const response = await fetch(`${server.url}/readyz`);
  return { status: response.status, body: (await response.json()) as { code?: string } };
}

describe.each([200, 500])(
  "a collector that answers each export %i with megabytes of nested JSON",
  (status) => {
    let collector: Upstream;
    let exports = 0;
    // About 3.8 MB, nested a few levels in each of many entries.
    const reply = JSON.stringify({
      partialSuccess: {},
      padding: Array.from({ length: 90_000 }, (_, i) => ({
        a: [{ b: { c: [i, { d: "xyzzy" }] } }],
      })),
    });

    beforeAll(async () => {
      collector = await startUpstream();
      collector.handle((_req, res) => {
        exports++;
        res.writeHead(status, { "content-type": "application/json" }).end(reply);
      });
      return () => collector.close();
    });

    const server = startSuiteServer(() => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      // Spans go out every 100 ms, so each few requests make an export.
      OTEL_BSP_SCHEDULE_DELAY: "100",
      NODE_OPTIONS: `--import ${loopDelayScript}`,
    }));

    it("never holds the loop while the replies come and go", async () => {
      await readLoopDelay(server);
      const started = performance.now();
      let probes = 0;
      let slowestProbe = 0;
      while (exports < 8 && performance.now() - started < 60_000) {
        const probeStart = performance.now();
        await (await fetch(`${server.url}/healthz`)).arrayBuffer();
        slowestProbe = Math.max(slowestProbe, performance.now() - probeStart);
        probes++;
        await sleep(20);
      }
      const { maxMs, heldCpuMs } = await readLoopDelay(server);
      figures.push(
        `collector replying ${status} with ${(reply.length / 1e6).toFixed(1)} MB to each of ${exports} exports: ` +
          `loop held at most ${heldCpuMs} ms of CPU (delay ${maxMs} ms), slowest of ${probes} /healthz ${Math.round(slowestProbe)} ms`,
      );
      expect(exports).toBeGreaterThanOrEqual(8);
      // Parsing one reply holds the loop for hundreds of milliseconds of CPU.
      expect(heldCpuMs).toBeLessThan(100);
    });
  },
);

describe("300 concurrent readiness probes", () => {
  const PROBES = 300;
  const hanging = startSuiteServer(() => ({ API_BASE_URL: api.url, API_TIMEOUT_MS: "1000" }), {
    expectedStatuses: [503],
  });
  let closedPort: number;
  beforeAll(async () => void (closedPort = await getClosedPort()));
  const down = startSuiteServer(() => ({ API_BASE_URL: `http://127.0.0.1:${closedPort}` }), {
    expectedStatuses: [503],
  });

  it("while the API hangs ask it once a deadline at most, and all hear its answer", async () => {
    api.handle(() => {});
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: PROBES }, () => readyz(hanging)));
    const ms = performance.now() - started;
    expect(
      answers.every(({ status, body }) => status === 503 && body.code === "UPSTREAM_TIMEOUT"),
    ).toBe(true);
    // Probes arriving while a check is in flight wait on it: one check a deadline at most, however
    // long the probes took to arrive, where each probe on its own would have made one.
    expect(api.received.length).toBeLessThanOrEqual(Math.ceil(ms / 1_000));
    figures.push(
      `${PROBES} /readyz with the API hanging: ${api.received.length} check(s), all answered in ${Math.round(ms)} ms`,
    );
  });

  it("ask again once the answer is out: readiness is never older than the probe", async () => {
    api.handle((_req, res) => res.writeHead(204).end());
    expect((await readyz(hanging)).status).toBe(200);
    api.handle((_req, res) => res.writeHead(503).end());
    expect((await readyz(hanging)).status).toBe(503);
    expect(api.received.length).toBeGreaterThanOrEqual(1);
  });

  it("with the API down say so once, however many ask", async () => {
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(Array.from({ length: PROBES }, () => readyz(down)));
      expect(
        answers.every(({ status, body }) => status === 503 && body.code === "UPSTREAM_UNAVAILABLE"),
      ).toBe(true);
    }
    await expect.poll(() => getLogLines(down, "upstream call failed").length).toBe(1);
  });

  it("with the API coming and going say so once a minute, not at each new failure", async () => {
    let checks = 0;
    api.handle((req, res) => (++checks % 2 ? req.socket.destroy() : res.writeHead(204).end()));
    const said = () => getLogLines(hanging, "upstream call failed", '"call":"readiness"').length;
    const [warnings, requests] = [said(), getLogLines(hanging, '"msg":"request"').length];
    for (let probe = 0; probe < 10; probe++) await fetch(`${hanging.url}/readyz`);
    expect(checks).toBe(10);
    // Each warning is written before its probe's request line: once those are in, so are they.
    await expect.poll(() => getLogLines(hanging, '"msg":"request"').length).toBe(requests + 10);
    expect(said() - warnings).toBeLessThanOrEqual(1);
  });

  it("a visitor who leaves does not end the check the others wait on", async () => {
    api.handle((_req, res) => void setTimeout(() => res.writeHead(204).end(), 300));
    const leaving = new AbortController();
    const left = fetch(`${hanging.url}/readyz`, { signal: leaving.signal }).catch(
      (error: Error) => error.name,
    );
    const staying = readyz(hanging);
    await sleep(50);
    leaving.abort();
    expect(await left).toBe("AbortError");
    expect((await staying).status).toBe(200);
    expect(api.received.length).toBe(1);
  });
});

describe("the metrics port", () => {
  const server = startSuiteServer(() => ({
    METRICS_PORT: "0",
    HEADERS_TIMEOUT_MS: "3000",
    KEEP_ALIVE_TIMEOUT_MS: "1000",
  }));

  /**
   * How long until the server closes a connection that sent `request` (or nothing), and whether it
   * did: after two minutes the test gives up and closes it itself.
   */
  async function watchUntilClosed(port: number, request?: string) {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.resume();
    await new Promise((resolve) => socket.once("connect", resolve));
    const started = performance.now();
    if (request) socket.write(request);
    const byServer = await Promise.race([
      new Promise<boolean>((resolve) => socket.once("close", () => resolve(true))),
      sleep(120_000).then(() => false),
    ]);
    socket.destroy();
    return { ms: Math.round(performance.now() - started), byServer };
  }

  it("closes idle and silent connections as the app's port does", async () => {
    const scrape = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
    const [metricsSilent, appSilent, metricsIdle, appIdle] = await Promise.all([
      watchUntilClosed(server.metricsPort!),
      watchUntilClosed(server.port),
      watchUntilClosed(server.metricsPort!, scrape),
      watchUntilClosed(server.port, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"),
    ]);
    figures.push(
      `connections closed after (metrics / app): silent ${metricsSilent.ms} / ${appSilent.ms} ms, ` +
        `idle after an answer ${metricsIdle.ms} / ${appIdle.ms} ms`,
    );
    for (const closed of [metricsSilent, appSilent, metricsIdle, appIdle])
      expect(closed.byServer).toBe(true);
    // Headers timeout 3 s, keep-alive 1 s, measured side by side; Node's own would be 60-90 s and 5 s.
    expect(metricsSilent.ms).toBeLessThanOrEqual(2 * appSilent.ms);
    expect(metricsIdle.ms).toBeLessThanOrEqual(2 * appIdle.ms);
  }, 180_000);
});

describe("trace context passed on by a trusted proxy", () => {
  const server = startSuiteServer(() => ({ API_BASE_URL: api.url, TRUST_PROXY: "true" }));

  async function sendThrough(traceparent: string, tracestate: string) {
    api.handle((_req, res) => sendJson(res, 200, {}));
    expect(
      (await fetch(`${server.url}/readyz`, { headers: { traceparent, tracestate } })).status,
    ).toBe(200);
    const sent = api.received[0]!.headers;
    return { flags: String(sent.traceparent).slice(-2), state: sent.tracestate };
  }

  it.each([
    ["fd", "01"],
    ["ff", "01"],
    ["fe", "00"],
    ["02", "00"],
  ])("zeroes the unknown flags of %s", async (flags, kept) => {
    expect((await sendThrough(`00-${TRACE_ID}-${PARENT_ID}-${flags}`, "a=1")).flags).toBe(kept);
  });

  it("keeps 32 tracestate members of 33", async () => {
    const members = Array.from({ length: 33 }, (_, i) => `m${i}=${i}`);
    const { state } = await sendThrough(`00-${TRACE_ID}-${PARENT_ID}-01`, members.join(","));
    expect(state).toBe(members.slice(0, 32).join(","));
  });

  it.each([
    ["a malformed member", "a=1,=2"],
    ["a repeated key", "a=1,a=2"],
    ["a header of nothing but commas", ",,,,"],
  ])("drops a tracestate with %s", async (_case, tracestate) => {
    expect((await sendThrough(`00-${TRACE_ID}-${PARENT_ID}-01`, tracestate)).state).toBeUndefined();
  });
});
