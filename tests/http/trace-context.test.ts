import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getLogLines, startSuiteServer, type RunningServer } from "../support/server";
import { getClosedPort, sendJson, startUpstream, type Upstream } from "../support/upstream";
import { buildReferenceApp, referenceAppBuild } from "../support/reference-app";

// Every request belongs to a W3C trace; every call made for it, readiness included, carries the
// trace on as a child; its log lines carry the trace id; with OTEL_EXPORTER_OTLP_ENDPOINT set,
// the request's and the call's spans reach a collector (here a scripted one on loopback).

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;
const TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
const PROXIED = { traceparent: TRACEPARENT, tracestate: TRACESTATE };
const VALID = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

let api: Upstream;
let collector: Upstream;

beforeAll(async () => {
  await buildReferenceApp();
  [api, collector] = await Promise.all([startUpstream(), startUpstream()]);
  collector.handle((_req, res) => sendJson(res, 200, {}));
  return async () => void (await Promise.all([api.close(), collector.close()]));
});

function readSentTrace(index = 0) {
  const header = api.received[index]?.headers.traceparent;
  const match = VALID.exec(String(header));
  if (!match) throw new Error(`the API got no valid traceparent: ${header}`);
  const [, traceId = "", spanId = "", flags = ""] = match;
  return { traceId, spanId, flags, state: api.received[index]!.headers.tracestate };
}

/** The request's log lines, once `count` of them are out: a line is written as its answer ends. */
async function readLogLines(server: RunningServer, requestId: string, count: number) {
  const read = () =>
    getLogLines(server, `"requestId":"${requestId}"`).map(
      (line) => JSON.parse(line) as { msg: string; traceId?: string },
    );
  await expect.poll(() => read().length).toBeGreaterThanOrEqual(count);
  return read();
}

async function visit(server: RunningServer, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(server.url + path, { headers });
  await response.arrayBuffer();
  return response;
}

const answerThing = () =>
  api.handle((_req, res) => sendJson(res, 200, { id: "1", name: "A thing" }));

describe("behind a trusted proxy", () => {
  const server = startSuiteServer(() => ({ API_BASE_URL: api.url, TRUST_PROXY: "true" }), {
    cwd: referenceAppBuild,
    expectedStatuses: [503],
  });

  it("continues the proxy's trace: the call is a child in it, with the proxy's tracestate", async () => {
    answerThing();
    await visit(server, "/call/1", { ...PROXIED, "x-request-id": "t-1" });
    const sent = readSentTrace();
    expect(sent.traceId).toBe(TRACE_ID);
    expect(sent.spanId).not.toBe(PARENT_ID);
    expect(sent.flags).toBe("01");
    expect(sent.state).toBe(TRACESTATE);
    expect(await readLogLines(server, "t-1", 1)).toEqual([
      expect.objectContaining({ msg: "request", traceId: TRACE_ID }),
    ]);
  });

  it("puts the trace id on every log line of the request, a failed call's too", async () => {
    api.handle((_req, res) => res.writeHead(503).end());
    const headers = { traceparent: TRACEPARENT, "x-request-id": "t-2" };
    const response = await visit(server, "/call/1", headers);
    expect(response.status).toBe(503);
    const lines = await readLogLines(server, "t-2", 2);
    expect(lines.map((line) => line.msg)).toEqual([
      expect.stringMatching(/^upstream call failed/),
      "request",
    ]);
    for (const line of lines) expect(line.traceId).toBe(TRACE_ID);
  });

  it.each([
    ["version ff", `ff-${TRACE_ID}-${PARENT_ID}-01`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${PARENT_ID}-01`],
    ["an all-zero parent id", `00-${TRACE_ID}-${"0".repeat(16)}-01`],
    ["upper-case hex", TRACEPARENT.toUpperCase()],
    ["a short trace id", `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`],
    ["version 00 with a fifth field", `${TRACEPARENT}-extra`],
    ["two headers", `${TRACEPARENT}, ${TRACEPARENT}`],
    ["text", "hello"],
  ])(
    "starts a new trace for a traceparent with %s, dropping its tracestate",
    async (_case, traceparent) => {
      answerThing();
      await visit(server, "/call/1", { ...PROXIED, traceparent });
      const sent = readSentTrace();
      expect(sent.traceId).not.toBe(TRACE_ID);
      expect(sent.state).toBeUndefined();
    },
  );

  it("keeps a later version's four fields, as the standard asks", async () => {
    answerThing();
    await visit(server, "/call/1", { traceparent: `01-${TRACE_ID}-${PARENT_ID}-01-more` });
    expect(readSentTrace().traceId).toBe(TRACE_ID);
  });

  it("starts a new trace for each request that comes without one, not recorded when nothing exports", async () => {
    answerThing();
    await visit(server, "/call/1");
    await visit(server, "/call/1");
    const [first, second] = [readSentTrace(0), readSentTrace(1)];
    expect(first.traceId).not.toBe(second.traceId);
    expect([first.flags, second.flags]).toEqual(["00", "00"]);
  });
});

describe("the readiness check", () => {
  const server = startSuiteServer(() => ({ API_BASE_URL: api.url, TRUST_PROXY: "true" }));

  it("carries the request's trace on to the API", async () => {
    api.handle((_req, res) => res.writeHead(204).end());
    const response = await visit(server, "/readyz", { traceparent: TRACEPARENT });
    expect(response.status).toBe(200);
    expect(readSentTrace()).toMatchObject({ traceId: TRACE_ID, flags: "01" });
  });
});

describe("with no trusted proxy", () => {
  const server = startSuiteServer(() => ({ API_BASE_URL: api.url }), { cwd: referenceAppBuild });

  it("starts its own trace: a visitor's traceparent and tracestate go no further", async () => {
    answerThing();
    await visit(server, "/call/1", { ...PROXIED, "x-request-id": "u-1" });
    const sent = readSentTrace();
    expect(sent.traceId).not.toBe(TRACE_ID);
    expect(sent.state).toBeUndefined();
    expect(await readLogLines(server, "u-1", 1)).toEqual([
      expect.objectContaining({ msg: "request", traceId: sent.traceId }),
    ]);
  });
});

type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
};
type OtlpExport = {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
};

/** What the collector has received, once it holds `count` spans. */
async function collectSpans(count: number) {
  const read = () => {
    const exports = collector.received.map((request) => JSON.parse(request.body) as OtlpExport);
    const spans = exports.flatMap((batch) =>
      batch.resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) => scope.spans),
      ),
    );
    return { exports, spans };
  };
  await expect.poll(() => read().spans.length).toBeGreaterThanOrEqual(count);
  return read();
}

describe("with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  const server = startSuiteServer(
    () => ({
      API_BASE_URL: api.url,
      TRUST_PROXY: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: "50",
    }),
    { cwd: referenceAppBuild },
  );
  beforeEach(() => {
    answerThing();
    collector.handle((_req, res) => sendJson(res, 200, {}));
  });

  it("exports the request's span and the call's, under the ids the call carried", async () => {
    await visit(server, "/call/1", { traceparent: TRACEPARENT });
    const sent = readSentTrace();
    const { exports, spans } = await collectSpans(2);
    expect(collector.received[0]).toMatchObject({ method: "POST", url: "/v1/traces" });
    const call = spans.find((span) => span.spanId === sent.spanId);
    const request = spans.find((span) => span.spanId === call?.parentSpanId);
    expect(call).toMatchObject({ traceId: TRACE_ID, name: "GET /things/{id}", kind: 3 });
    expect(request).toMatchObject({
      traceId: TRACE_ID,
      parentSpanId: PARENT_ID,
      name: "GET faults/call.$id",
      kind: 2,
    });
    expect(exports[0]!.resourceSpans[0]!.resource.attributes).toContainEqual({
      key: "service.name",
      value: { stringValue: "web-app" },
    });
  });

  it("records a new trace from its root, and sends it on as recorded", async () => {
    await visit(server, "/call/1");
    const sent = readSentTrace();
    expect(sent.flags).toBe("01");
    const { spans } = await collectSpans(2);
    const request = spans.find((span) => span.kind === 2);
    expect(request).toMatchObject({ traceId: sent.traceId });
    expect(request?.parentSpanId ?? "").toBe("");
  });

  it("records nothing of a trace the proxy does not record, yet carries it on", async () => {
    await visit(server, "/call/1", { traceparent: TRACEPARENT.replace(/01$/, "00") });
    expect(readSentTrace()).toMatchObject({ traceId: TRACE_ID, flags: "00" });
    await visit(server, "/healthz", { traceparent: TRACEPARENT });
    const { spans } = await collectSpans(1);
    expect(spans.map((span) => span.traceId)).toEqual([TRACE_ID]);
    expect(spans.map((span) => span.name)).toEqual(["GET routes/healthz"]);
  });
});

describe("with a collector that is down", () => {
  let closedPort = 0;
  beforeAll(async () => {
    closedPort = await getClosedPort();
  });
  const server = startSuiteServer(
    () => ({
      API_BASE_URL: api.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closedPort}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: "300",
      OTEL_BSP_SCHEDULE_DELAY: "20",
    }),
    { cwd: referenceAppBuild },
  );
  it("keeps serving, and says so once, not once per failed export", async () => {
    answerThing();
    for (let i = 0; i < 10; i++) {
      expect((await visit(server, "/call/1")).status).toBe(200);
      await sleep(50);
    }
    const countWarnings = () => getLogLines(server, "spans not exported").length;
    await expect.poll(countWarnings).toBeGreaterThan(0);
    expect(countWarnings()).toBe(1);
  });
});
