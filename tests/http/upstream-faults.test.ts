import { once } from "node:events";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import zlib from "node:zlib";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { callApi, onCallOutcome, type CallOutcomeEvent } from "~/api/client.server";
import { createThing, getThing, sendNote } from "../support/fault-routes/calls.server";
import { createThingOnce, deleteThing, getLooseThing } from "../support/fault-routes/calls.server";
import { getConstrained } from "../support/fault-routes/calls.server";
import { createIncoming, getFailure } from "../support/api-calls";
import { answerRaw, getClosedPort, sendJson, startUpstream } from "../support/upstream";
import type { Upstream } from "../support/upstream";

// callApi against an API that misbehaves, down to the bytes on the wire.

const THING = JSON.stringify({ id: "1", name: "Thing" });
const LENGTH = `Content-Length: ${THING.length}`;
// A raw answer closes its connection, and says so, so the client does not send the next request on it.
const CLOSE = "Connection: close";
const BAD_ANSWER = { status: 502, code: "UPSTREAM_BAD_RESPONSE" };
const UNAVAILABLE = { status: 503, code: "UPSTREAM_UNAVAILABLE" };

/** A well-formed answer head (status line and headers), with the blank line after it. */
function head(statusLine: string, ...headers: string[]) {
  return [statusLine, ...headers].join("\r\n") + "\r\n\r\n";
}

function gzipTimes(text: string, times: number) {
  let body = Buffer.from(text);
  for (let i = 0; i < times; i++) body = zlib.gzipSync(body);
  return body;
}

let upstream: Upstream;
let settings: Parameters<typeof callApi>[3] & {};
let events: CallOutcomeEvent[] = [];
let stopListening: () => void;

beforeAll(async () => {
  upstream = await startUpstream();
  stopListening = onCallOutcome((event) => events.push(event));
});

// A deadline no answer here comes near, however busy the machine; tests about it set their own. A
// failure that came at once is told from one that waited for it by its outcome: a wait is a 504.
const DEADLINE_MS = 10_000;
// Ten retries saved, as a process starts; each call earns a tenth of one.
const FULL_BUDGET = 100;

beforeEach(() => {
  events = [];
  settings = {
    API_BASE_URL: upstream.url,
    API_TIMEOUT_MS: DEADLINE_MS,
    API_MAX_RESPONSE_BYTES: 1_024,
    retryBudget: { credits: FULL_BUDGET },
  };
});

afterEach(() => vi.restoreAllMocks());

afterAll(async () => {
  stopListening();
  await upstream.close();
});

const reset = (socket: Socket) => socket.resetAndDestroy();
const getOne = () => callApi(createIncoming(), getThing, { params: { id: "1" } }, settings);
const run = (call: Parameters<typeof callApi>[1], input: unknown, options = settings) =>
  callApi(createIncoming(), call, input as never, options);
const answerStatus = (status: number) => upstream.handle((_req, res) => sendJson(res, status, {}));
const outcomes = () => events.map((event) => event.outcome);

/** Answers every request with `status` and `headers`; returns when each request came. */
function answerBusy(status: number, headers = {}) {
  const starts: number[] = [];
  upstream.handle((_req, res) => {
    starts.push(performance.now());
    sendJson(res, status, {}, headers);
  });
  return starts;
}

describe("an answer that breaks HTTP", () => {
  const resetAfter = (bytes: string) => (socket: Socket) => {
    socket.write(bytes, () => socket.resetAndDestroy());
  };
  it.each<[string, string | Buffer | ((socket: Socket) => void)]>([
    ["a garbage status line", `FOO BAR BAZ\r\n\r\n${THING}`],
    ["an HTTP/0.9 answer: a body and no status line", THING],
    [
      "101 Switching Protocols",
      head("HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade"),
    ],
    ["101 without an Upgrade header", head("HTTP/1.1 101 Switching Protocols")],
    ["two different Content-Lengths", head("HTTP/1.1 200 OK", LENGTH, "Content-Length: 5") + THING],
    [
      "Transfer-Encoding with Content-Length",
      head("HTTP/1.1 200 OK", LENGTH, "Transfer-Encoding: chunked") +
        `${THING.length.toString(16)}\r\n${THING}\r\n0\r\n\r\n`,
    ],
    [
      "a chunk size that is not hex",
      head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + "zz\r\nabc\r\n0\r\n\r\n",
    ],
    ["a header line without a colon", head("HTTP/1.1 200 OK", "Broken header", LENGTH) + THING],
    ["a NUL in a header value", head("HTTP/1.1 200 OK", "X-A: a\0b", LENGTH) + THING],
    ["bare LF line ends", `HTTP/1.1 200 OK\n${LENGTH}\n\n${THING}`],
    ["a status line of 100 KB", head(`HTTP/1.1 200 ${"O".repeat(100_000)}`, LENGTH) + THING],
    ["a status code of 999", head("HTTP/1.1 999 Odd", "Content-Length: 0")],
    [
      "an HTTP/2 preface",
      Buffer.from("000012040000000000000300000064000400100000000600004000", "hex"),
    ],
    ["a status line cut short, then the connection closed", "HTTP/1.1 20"],
    ["headers cut short, then a reset", resetAfter(`HTTP/1.1 200 OK\r\n${LENGTH}\r\n`)],
    ["a body cut short, then a reset", resetAfter(head("HTTP/1.1 200 OK", LENGTH) + '{"id"')],
  ])("is a bad answer at once, without a retry: %s", async (_case, answer) => {
    upstream.handleRaw(typeof answer === "function" ? answer : answerRaw(answer));
    expect(await getFailure(getOne())).toEqual(BAD_ANSWER);
    expect(upstream.received).toHaveLength(1);
    expect(outcomes()).toEqual(["bad_answer"]);
  });

  it.each<[string, string, Buffer]>([
    ["six stacked gzip codings", "gzip, gzip, gzip, gzip, gzip, gzip", gzipTimes(THING, 6)],
    ["two stacked gzip codings", "gzip, gzip", gzipTimes(THING, 2)],
    ["a coding it did not ask for", "zstd", Buffer.from(THING)],
    ["gzip that is not gzip", "gzip", Buffer.from(THING)],
  ])("is a bad answer at once, without a retry: %s", async (_case, coding, body) => {
    const answer = head(
      "HTTP/1.1 200 OK",
      `Content-Encoding: ${coding}`,
      `Content-Length: ${body.length}`,
    );
    upstream.handleRaw(answerRaw(answer, body));
    expect(await getFailure(getOne())).toEqual(BAD_ANSWER);
    expect(upstream.received).toHaveLength(1);
  });

  it("cuts 20,000 headers off in the parser, once", async () => {
    const headers = Array.from({ length: 20_000 }, (_, i) => `X-Header-${i}: value`);
    upstream.handleRaw(answerRaw(head("HTTP/1.1 200 OK", ...headers, LENGTH), THING));
    expect(await getFailure(getOne())).toEqual(BAD_ANSWER);
    expect(upstream.received).toHaveLength(1);
  });

  it.each([
    ["gzip", zlib.gzipSync(Buffer.alloc(20_000_000))],
    ["br", zlib.brotliCompressSync(Buffer.alloc(20_000_000))],
    ["deflate", zlib.deflateSync(Buffer.alloc(20_000_000))],
  ])("stops a %s bomb at the size cap", async (coding, body) => {
    upstream.handleRaw(answerRaw(head("HTTP/1.1 200 OK", `Content-Encoding: ${coding}`), body));
    expect(await getFailure(getOne())).toEqual(BAD_ANSWER);
  });
});

// Each kind of constraint a contract states (tests/support/fault-routes/faults.yaml), held at run time.
describe("a value off its contract", () => {
  const RECORD = { id: "6f1c1c1e-7d3a-4b1e-9a1a-1c2b3d4e5f60", count: 1 };
  const getRecord = (query: object = { page: 1 }) => run(getConstrained, { query });

  it.each([
    ["not an integer", { count: 1.5 }],
    ["under its minimum", { count: -1 }],
    ["over its maximum", { count: 11 }],
    ["outside its enum", { kind: "c" }],
    ["over its maxLength", { name: "abcdef" }],
    ["off its format, uuid", { id: "1" }],
    ["off its format, date-time", { at: "yesterday" }],
    ["missing, though required", { count: undefined }],
    ["null, though not nullable", { kind: null }],
    ["of another type", { note: 1 }],
  ])("in an answer, %s, is a bad answer at once", async (_case, fields) => {
    upstream.handle((_req, res) => sendJson(res, 200, { ...RECORD, ...fields }));
    expect(await getFailure(getRecord())).toEqual(BAD_ANSWER);
    expect(outcomes()).toEqual(["bad_answer"]);
  });

  it("is not in an answer that is null where nullable, and has its defaults filled in", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { ...RECORD, note: null }));
    expect(await getRecord()).toEqual({ ...RECORD, note: null, status: "active" });
  });

  it.each([
    ["not an integer", { page: 1.5 }],
    ["under its minimum", { page: 0 }],
    ["over its maximum", { page: 101 }],
    ["missing, though required", {}],
    ["outside its enum", { page: 1, sort: "size" }],
    ["over its maxLength", { page: 1, q: "x".repeat(11) }],
    ["off its format, date", { page: 1, since: "2026-02-30" }],
    ["not a parameter of the contract", { page: 1, nope: "x" }],
  ])("in a query, %s, is a 400 before any call", async (_case, query) => {
    upstream.handle((_req, res) => sendJson(res, 200, RECORD));
    expect(await getFailure(getRecord(query))).toEqual({ status: 400, code: "BAD_REQUEST" });
    expect(upstream.received).toHaveLength(0);
  });
});

describe("an answer that never ends", () => {
  /** Writes `first`, then `bytes` one at a time, every 50 ms, while the connection stays open. */
  const drip = (bytes: string, first?: string) => (socket: Socket) => {
    if (first) socket.write(first);
    let sent = 0;
    const timer = setInterval(() => socket.write(bytes[sent++ % bytes.length]!), 50);
    socket.on("close", () => clearInterval(timer));
  };

  it.each([
    ["a status line that drips", drip("HTTP/1.1 200 OK\r\n")],
    ["headers that never end", drip("X-Slow: 1\r\n", "HTTP/1.1 200 OK\r\n")],
    ["a body that drips", drip(" ", head("HTTP/1.1 200 OK", "Content-Length: 1000"))],
    ["silence", () => {}],
  ])("is a timeout at the deadline, and the request is closed: %s", async (_case, answer) => {
    settings.API_TIMEOUT_MS = 300;
    upstream.handleRaw(answer);
    const closed = upstream.nextAbort();
    const started = performance.now();
    expect(await getFailure(getOne())).toEqual({ status: 504, code: "UPSTREAM_TIMEOUT" });
    console.info(`${_case}: the 504 after ${(performance.now() - started).toFixed(0)} ms`);
    await closed;
    expect(outcomes()).toEqual(["timeout"]);
  });
});

describe("an answer HTTP allows, however unusual", () => {
  it.each([
    ["100 Continue, then 200", head("HTTP/1.1 100 Continue")],
    [
      "103 Early Hints, then 200",
      head("HTTP/1.1 103 Early Hints", "Link: </style.css>; rel=preload"),
    ],
  ])("is read: %s", async (_case, interim) => {
    upstream.handleRaw(answerRaw(interim, head("HTTP/1.1 200 OK", LENGTH, CLOSE), THING));
    expect(await getOne()).toEqual({ id: "1", name: "Thing" });
    expect(upstream.received).toHaveLength(1);
    expect(outcomes()).toEqual(["ok"]);
  });

  it.each([
    ["gzip", zlib.gzipSync(THING)],
    ["x-gzip", zlib.gzipSync(THING)],
    ["deflate", zlib.deflateSync(THING)],
    ["br", zlib.brotliCompressSync(THING)],
    ["identity", Buffer.from(THING)],
  ])("is decoded from %s", async (coding, body) => {
    upstream.handleRaw(
      answerRaw(head("HTTP/1.1 200 OK", `Content-Encoding: ${coding}`, CLOSE), body),
    );
    expect(await getOne()).toEqual({ id: "1", name: "Thing" });
    expect(upstream.received[0]!.headers["accept-encoding"]).toBe("gzip, deflate, br");
  });
});

describe("a connection that fails", () => {
  it.each([
    ["a read", getThing, { params: { id: "1" } }],
    ["a write, since nothing reached the API", createThing, { body: { name: "x" } }],
  ] as const)("is retried when refused, for %s, then unavailable", async (_case, call, input) => {
    const refused = { ...settings, API_BASE_URL: `http://127.0.0.1:${await getClosedPort()}` };
    expect(await getFailure(run(call, input, refused))).toEqual(UNAVAILABLE);
    expect(outcomes()).toEqual(["retry", "retry", "unavailable"]);
  });

  it.each([
    ["reset before the API read the request", () => upstream.handleConnections(reset), 0],
    ["reset after the API read the request", () => upstream.handleRaw(reset), 3],
    [
      "closed after the API read the request, with no answer",
      () => upstream.handleRaw((socket) => socket.end()),
      3,
    ],
  ])("is retried for a read when %s, then unavailable", async (_case, script, received) => {
    script();
    expect(await getFailure(getOne())).toEqual(UNAVAILABLE);
    expect(upstream.received).toHaveLength(received);
    expect(outcomes()).toEqual(["retry", "retry", "unavailable"]);
  });

  it.each([
    ["DELETE", deleteThing, { params: { id: "1" } }],
    ["POST", createThing, { body: { name: "x" } }],
  ] as const)("never replays a %s the API may have read", async (_case, call, input) => {
    upstream.handleRaw(reset);
    expect(await getFailure(run(call, input))).toEqual(UNAVAILABLE);
    expect(upstream.received).toHaveLength(1);
    expect(outcomes()).toEqual(["unavailable"]);
  });

  it("replays a write with an idempotency key, under the same key", async () => {
    upstream.handleRaw((socket) =>
      upstream.received.length < 3
        ? reset(socket)
        : answerRaw(head("HTTP/1.1 201 Created", LENGTH, CLOSE), THING)(socket),
    );
    expect(await run(createThingOnce, { body: { name: "x" } })).toEqual({ id: "1", name: "Thing" });
    const keys = upstream.received.map((request) => request.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(outcomes()).toEqual(["retry", "retry", "ok"]);
  });

  it("sends a new key with each call, and none for a call that does not declare one", async () => {
    upstream.handle((_req, res) => sendJson(res, 201, { id: "1", name: "x" }));
    for (const call of [createThingOnce, createThingOnce, createThing]) {
      await run(call, { body: { name: "x" } });
    }
    const keys = upstream.received.map((request) => request.headers["idempotency-key"]);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBeUndefined();
  });
});

describe("a kept-alive connection left idle", () => {
  it.each([
    ["a second before the timeout the API announces", { "keep-alive": "timeout=2" }],
    ["after 4 s when the API announces none", {}],
  ])(
    "is closed by the app %s, so no write goes out on one the API is dropping",
    async (_case, hint) => {
      const api = http.createServer((req, res) =>
        req.resume().on("end", () => sendJson(res, 200, { id: "1", name: "Thing" }, hint)),
      );
      // This API never closes an idle connection itself, and announces only what `hint` says.
      api.keepAliveTimeout = 0;
      const connections: Promise<unknown>[] = [];
      api.on("connection", (socket: Socket) => connections.push(once(socket, "close")));
      await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
      const { port } = api.address() as AddressInfo;
      const local = { ...settings, API_BASE_URL: `http://127.0.0.1:${port}` };
      try {
        await run(getThing, { params: { id: "1" } }, local);
        await connections[0];
        await run(createThing, { body: { name: "x" } }, local);
        expect(connections).toHaveLength(2);
      } finally {
        api.closeAllConnections();
        api.close();
      }
    },
  );
});

describe("a status that says the API is busy or failing", () => {
  it.each([
    [429, UNAVAILABLE],
    [503, UNAVAILABLE],
    [502, BAD_ANSWER],
    [504, { status: 504, code: "UPSTREAM_TIMEOUT" }],
  ])("is retried for a read: %i, then shown as %j", async (status, shown) => {
    answerStatus(status);
    expect(await getFailure(getOne())).toEqual(shown);
    expect(upstream.received).toHaveLength(3);
  });

  it("is retried for a PUT", async () => {
    answerStatus(503);
    const call = run(sendNote, { params: { id: "1" }, body: { note: "x" } });
    expect(await getFailure(call)).toEqual(UNAVAILABLE);
    expect(upstream.received).toHaveLength(3);
  });

  it.each([
    ["POST", createThing, { body: { name: "x" } }],
    ["DELETE", deleteThing, { params: { id: "1" } }],
  ] as const)("is not retried for a %s without an idempotency key", async (_case, call, input) => {
    answerStatus(429);
    expect(await getFailure(run(call, input))).toEqual(UNAVAILABLE);
    expect(upstream.received).toHaveLength(1);
  });

  it.each([
    ["its lowest", 0, [49, 99]],
    ["its highest", 0.999, [99, 199]],
  ])("waits with jitter between retries, doubling: the draw at %s", async (_case, draw, least) => {
    vi.spyOn(Math, "random").mockReturnValue(draw);
    const starts = answerBusy(503);
    await getFailure(getOne());
    const waits = [starts[1]! - starts[0]!, starts[2]! - starts[1]!];
    console.info(`waits before the retries: ${waits.map((ms) => ms.toFixed(0)).join(", ")} ms`);
    expect(waits[0]).toBeGreaterThanOrEqual(least[0]!);
    expect(waits[1]).toBeGreaterThanOrEqual(least[1]!);
  });
});

describe("Retry-After", () => {
  it.each([
    ["3600", 503],
    ["3600", 429],
    ["99999999999999999999999", 503],
    [new Date(Date.now() + 60_000).toUTCString(), 503],
  ])("gives up at once when %s does not fit in the deadline (%i)", async (retryAfter, status) => {
    answerBusy(status, { "retry-after": retryAfter });
    expect(await getFailure(getOne())).toEqual(UNAVAILABLE);
    expect(upstream.received).toHaveLength(1);
  });

  it("waits as long as it asks when that fits in the deadline", async () => {
    const starts: number[] = [];
    upstream.handle((_req, res) => {
      starts.push(performance.now());
      if (starts.length === 1) sendJson(res, 503, {}, { "retry-after": "1" });
      else sendJson(res, 200, { id: "1", name: "Back" });
    });
    expect(await getOne()).toEqual({ id: "1", name: "Back" });
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(999);
  });

  it.each([
    "-1",
    "soon",
    "",
    "9.5",
    "1e3",
    "Someday, 99 Foo 2026",
    new Date(Date.now() - 60_000).toUTCString(),
  ])("is ignored when it is %j, and the retries go on with their own waits", async (retryAfter) => {
    const starts = answerBusy(503, { "retry-after": retryAfter });
    expect(await getFailure(getOne())).toEqual(UNAVAILABLE);
    // Three attempts: "9.5" read as seconds would fit in the deadline once, not twice.
    expect(starts).toHaveLength(3);
    // Its own jittered waits: at least half of 100 and of 200 ms.
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(49);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(99);
  });
});

describe("the retry budget", () => {
  it("keeps a failing API's load to about 1.1 times the calls", async () => {
    answerStatus(503);
    const calls = 200;
    for (let batch = 0; batch < calls / 20; batch++) {
      await Promise.all(Array.from({ length: 20 }, () => getFailure(getOne())));
    }
    const load = upstream.received.length / calls;
    const exhausted = outcomes().filter((outcome) => outcome === "budget_exhausted").length;
    console.info(
      `${calls} calls to an API answering 503: ${upstream.received.length} requests (${load.toFixed(2)}x; ` +
        `3x without the budget), ${exhausted} retries refused by the budget`,
    );
    expect(upstream.received.length).toBeLessThanOrEqual(calls * 1.1 + 10);
    expect(exhausted).toBeGreaterThan(0);
  });

  it("reports a retry it refuses", async () => {
    settings.retryBudget = { credits: 0 };
    answerStatus(503);
    expect(await getFailure(getOne())).toEqual(UNAVAILABLE);
    expect(upstream.received).toHaveLength(1);
    expect(outcomes()).toEqual(["budget_exhausted", "unavailable"]);
  });

  it("buys one retry with every ten calls once spent", async () => {
    settings.retryBudget = { credits: 0 };
    answerStatus(503);
    for (let call = 0; call < 10; call++) await getFailure(getOne());
    expect(upstream.received).toHaveLength(11);
    expect(outcomes().filter((outcome) => outcome === "retry")).toHaveLength(1);
  });

  it("saves no more than ten retries, however many calls went well", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { id: "1", name: "Thing" }));
    for (let call = 0; call < 20; call++) await getOne();
    answerStatus(503);
    // Five calls spend the ten saved retries; the sixth finds too few credits left.
    for (let call = 0; call < 6; call++) await getFailure(getOne());
    expect(upstream.received).toHaveLength(5 * 3 + 1);
  });
});

describe("JSON nesting", () => {
  const getLoose = () => run(getLooseThing, { params: { id: "1" } });
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

  // The object around `extra` is one level: `extra` may nest 63 more.
  it.each([
    ["100,000 deep", `{"id":"1","extra":${nested(100_000)}}`],
    ["65 deep, one past the limit", `{"id":"1","extra":${nested(64)}}`],
    [
      "65 deep after a string ending in an escaped backslash",
      `{"id":"\\\\","extra":${nested(64)}}`,
    ],
    [
      "65 deep in objects and arrays mixed",
      `{"id":"1","extra":${'[{"a":'.repeat(32)}1${"}]".repeat(32)}}`,
    ],
  ])("is refused as a bad answer when %s", async (_case, body) => {
    settings.API_MAX_RESPONSE_BYTES = 1_000_000;
    upstream.handleRaw(answerRaw(head("HTTP/1.1 200 OK"), body));
    expect(await getFailure(getLoose())).toEqual(BAD_ANSWER);
    expect(outcomes()).toEqual(["bad_answer"]);
  });

  it.each([
    [
      "brackets inside strings not counted",
      `{"id":"[[[[\\"[[[","extra":${"[".repeat(63)}"]]]{{{"${"]".repeat(63)}}`,
      '[[[["[[[',
    ],
    [
      "siblings, which do not add up",
      `{"id":"1","extra":[${nested(62)},${nested(62)},${nested(62)}]}`,
      "1",
    ],
  ])("is accepted up to 64 deep: %s", async (_case, body, id) => {
    upstream.handleRaw(answerRaw(head("HTTP/1.1 200 OK", CLOSE), body));
    expect(await getLoose()).toMatchObject({ id });
  });
});

describe("outcome events", () => {
  it("name the call, its method and outcome, and time it", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { id: "1", name: "x" }));
    await getOne();
    answerStatus(404);
    await getFailure(run(deleteThing, { params: { id: "1" } }));
    expect(events).toEqual([
      { call: "GET /things/{id}", method: "GET", outcome: "ok", durationMs: expect.any(Number) },
      { call: "deleteThing", method: "DELETE", outcome: "404", durationMs: expect.any(Number) },
    ]);
  });

  it("say when the deadline passed, or the visitor left first", async () => {
    settings.API_TIMEOUT_MS = 100;
    upstream.handle(() => {});
    await getFailure(getOne());
    settings.API_TIMEOUT_MS = DEADLINE_MS;
    const visitor = new AbortController();
    const call = callApi(
      createIncoming(visitor.signal),
      getThing,
      { params: { id: "1" } },
      settings,
    );
    await expect.poll(() => upstream.received.length).toBe(2);
    visitor.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(outcomes()).toEqual(["timeout", "cancelled"]);
    expect(events[0]!.durationMs).toBeGreaterThanOrEqual(99);
  });

  it("never change a call's answer when a listener throws, and stop when unsubscribed", async () => {
    const unsubscribe = onCallOutcome(() => {
      throw new Error("listener bug");
    });
    upstream.handle((_req, res) => sendJson(res, 200, { id: "1", name: "x" }));
    expect(await getOne()).toEqual({ id: "1", name: "x" });
    unsubscribe();
    stopListening();
    await getOne();
    expect(outcomes()).toEqual(["ok"]);
    stopListening = onCallOutcome((event) => events.push(event));
  });
});
