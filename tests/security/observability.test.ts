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
// In parses of 1 MiB of JSON: about 11 when each 3.8 MB reply is parsed, 1.2 to 5.5 when not.
const MAX_HELD_PARSES = 7;

let api: Upstream;

beforeAll(async () => {
  api = await startUpstream();
  return () => api.close();
});

afterAll(() => console.log(figures.join("\n")));

const allAnswered = (answers: Awaited<ReturnType<typeof readyz>>[], code: string) =>
  answers.every(({ status, body }) => status === 503 && body.code === code);

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
      // A failed export is reported by its status: the collector's answer is not logged.
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
  const closedApi = () => ({ API_BASE_URL: `http://127.0.0.1:${closedPort}` });
  const down = startSuiteServer(closedApi, { expectedStatuses: [503] });

  it("while the API hangs ask it once a deadline at most, and all hear its answer", async () => {
    api.handle(() => {});
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: PROBES }, () => readyz(hanging)));
    const ms = performance.now() - started;
    expect(allAnswered(answers, "UPSTREAM_TIMEOUT")).toBe(true);
    // Probes arriving while a check is in flight wait on it: one check a deadline at most.
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
      expect(allAnswered(answers, "UPSTREAM_UNAVAILABLE")).toBe(true);
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
    HEADERS_TIMEOUT_MS: "3000",
    KEEP_ALIVE_TIMEOUT_MS: "1000",
  }));

  /** How long until the server closes a connection that sent `request`, if within 2 minutes. */
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

describe("the metrics port's keep-alive", () => {
  // The app's port keeps an idle connection for ten minutes.
  const server = startSuiteServer({ METRICS_PORT: "0", KEEP_ALIVE_TIMEOUT_MS: "600000" });

  it("is its own, short: a scraper's idle connection closes while a visitor's stays open", async () => {
    const answered = async (port: number, path: string) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("error", () => {});
      socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      await new Promise((resolve) => socket.once("data", resolve));
      return socket;
    };
    const [visitor, scraper] = await Promise.all([
      answered(server.port, "/healthz"),
      answered(server.metricsPort!, "/metrics"),
    ]);
    await new Promise((resolve) => scraper.once("close", resolve));
    expect(visitor.closed).toBe(false);
    visitor.destroy();
  });
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
