import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heldInJsonParses, LOOP_DELAY_OPTIONS, readLoopDelay } from "../support/request-cost";
import { getLogLines, startSuiteServer, type RunningServer } from "../support/server";
import { getClosedPort, sendJson, startUpstream, type Upstream } from "../support/upstream";

// What the server talks to besides its visitors (the API's health path, an OTLP collector, a
// metrics scraper) and what a trusted proxy passes on (trace context) may be hostile too.

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const figures: string[] = [];
// The longest stretch of the loop while replies come, in parses of 1 MiB of JSON: 0.7 to 1.8, or
// 10.8 to 11.7 when each 3.8 MB reply is parsed.
const MAX_HELD_PARSES = 7;

let api: Upstream;

beforeAll(async () => {
  api = await startUpstream();
  return () => api.close();
});

afterAll(() => console.log(figures.join("\n")));

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
      padding: Array.from({ length: 90_000 }, (_, i) => ({ a: [{ b: { c: [i, { d: "xyzzy" }] } }] })),
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
      NODE_OPTIONS: LOOP_DELAY_OPTIONS,
    }));

    it("never holds the loop while the replies come and go", async () => {
      // Each request makes a span: requests until `count` exports have had their replies.
      const probeUntilExports = async (count: number) => {
        while (exports < count) {
          await (await fetch(`${server.url}/healthz`)).arrayBuffer();
          await sleep(20);
        }
      };
      // From the second export on: the first request and export run code for the first time.
      await probeUntilExports(2);
      await readLoopDelay(server);
      await probeUntilExports(10);
      const loop = await readLoopDelay(server);
      figures.push(
        `collector replying ${status} with ${(reply.length / 1e6).toFixed(1)} MB to each of ${exports} exports: ` +
          `loop held at most ${loop.heldCpuMs} ms of CPU, ${heldInJsonParses(loop).toFixed(1)} parses of ` +
          `1 MiB of JSON (delay ${loop.maxMs} ms)`,
      );
      expect(heldInJsonParses(loop)).toBeLessThanOrEqual(MAX_HELD_PARSES);
      // A failed export is reported by its status: the collector's answer is neither logged nor
      // made into a string to be logged.
      const warnings = () => getLogLines(server, "spans not exported");
      if (status === 500) await expect.poll(() => warnings().length).toBeGreaterThan(0);
      expect(warnings().join("")).not.toContain("partialSuccess");
    });
  },
);

describe("300 concurrent readiness probes", () => {
  const PROBES = 300;
  const hanging = startSuiteServer(
    () => ({ API_BASE_URL: api.url, API_TIMEOUT_MS: "1000", METRICS_PORT: "0" }),
    { expectedStatuses: [503] },
  );
  let closedPort: number;
  beforeAll(async () => void (closedPort = await getClosedPort()));
  const down = startSuiteServer(() => ({ API_BASE_URL: `http://127.0.0.1:${closedPort}` }), {
    expectedStatuses: [503],
  });

  it("while the API hangs keep one connection to it open at a time, and all hear its answer", async () => {
    let open = 0;
    let mostOpen = 0;
    api.handle((_req, res) => {
      mostOpen = Math.max(mostOpen, ++open);
      res.on("close", () => open--);
    });
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: PROBES }, () => readyz(hanging)));
    const ms = performance.now() - started;
    expect(answers.every(({ status, body }) => status === 503 && body.code === "UPSTREAM_TIMEOUT")).toBe(
      true,
    );
    expect(mostOpen).toBe(1);
    // One check a deadline at most, however long the probes took to arrive: each waits the whole
    // deadline, one after another (a bound on the server's own waits, which no slowness breaks).
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
    expect(api.received.length).toBe(1);
  });

  it("with the API down say so once, however many ask", async () => {
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(Array.from({ length: PROBES }, () => readyz(down)));
      expect(
        answers.every(({ status, body }) => status === 503 && body.code === "UPSTREAM_UNAVAILABLE"),
      ).toBe(true);
    }
    await expect.poll(() => getLogLines(down, "upstream not ready").length).toBe(1);
  });

  it("a visitor who leaves does not end the check the others wait on", async () => {
    let answer = () => {};
    api.handle((_req, res) => void (answer = () => res.writeHead(204).end()));
    const leaving = new AbortController();
    const headers = { "x-request-id": "leaving-probe" };
    const left = fetch(`${hanging.url}/readyz`, { headers, signal: leaving.signal }).catch(
      (error: Error) => error.name,
    );
    // It started the check, then leaves, and the server has seen it go.
    await expect.poll(() => api.received.length).toBe(1);
    leaving.abort();
    expect(await left).toBe("AbortError");
    await expect.poll(() => getLogLines(hanging, '"requestId":"leaving-probe"').length).toBe(1);
    // Another comes, and waits (in flight, as the metrics port counts): on the same check.
    const staying = readyz(hanging);
    const metrics = `http://127.0.0.1:${hanging.metricsPort}/metrics`;
    const inFlight = async () =>
      /^http_requests_in_flight (\d+)/m.exec(await (await fetch(metrics)).text())?.[1];
    await expect.poll(inFlight).toBe("1");
    answer();
    expect((await staying).status).toBe(200);
    expect(api.received.length).toBe(1);
  });
});

describe("the metrics port", () => {
  const server = startSuiteServer(() => ({
    METRICS_PORT: "0",
    HEADERS_TIMEOUT_MS: "1000",
    KEEP_ALIVE_TIMEOUT_MS: "200",
  }));

  /** How long until the server closes a connection that sent `request` (or nothing), at most 15 s. */
  async function timeUntilClosed(port: number, request?: string) {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.resume();
    await new Promise((resolve) => socket.once("connect", resolve));
    const started = performance.now();
    if (request) socket.write(request);
    const closed = new Promise((resolve) => socket.once("close", resolve));
    await Promise.race([closed, sleep(15_000)]);
    socket.destroy();
    return performance.now() - started;
  }

  it("closes idle and silent connections as the app's port does", async () => {
    const scrape = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
    const [metricsSilent, appSilent, metricsIdle, appIdle] = await Promise.all([
      timeUntilClosed(server.metricsPort!),
      timeUntilClosed(server.port),
      timeUntilClosed(server.metricsPort!, scrape),
      timeUntilClosed(server.port, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"),
    ]);
    figures.push(
      `connections closed after (metrics / app): silent ${Math.round(metricsSilent)} / ${Math.round(appSilent)} ms, ` +
        `idle after an answer ${Math.round(metricsIdle)} / ${Math.round(appIdle)} ms`,
    );
    // Headers timeout 1 s (checked each second), keep-alive 0.2 s; Node's own are 60 s and 5 s.
    for (const ms of [metricsSilent, appSilent]) expect(ms).toBeLessThan(10_000);
    for (const ms of [metricsIdle, appIdle]) expect(ms).toBeLessThan(4_000);
  });
});

describe("trace context passed on by a trusted proxy", () => {
  const server = startSuiteServer(() => ({ API_BASE_URL: api.url, TRUST_PROXY: "true" }));

  async function sendThrough(traceparent: string, tracestate: string) {
    api.handle((_req, res) => sendJson(res, 200, {}));
    expect((await fetch(`${server.url}/readyz`, { headers: { traceparent, tracestate } })).status).toBe(200);
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
