import type http from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callApi } from "~/api/client.server";
import { createThing, getThing, sendNote } from "../support/fault-routes/calls.server";
import { createIncoming, getFailure } from "../support/api-calls";
import { getClosedPort, sendJson, startUpstream, type Upstream } from "../support/upstream";

let upstream: Upstream;
let settings: Parameters<typeof callApi>[3] & {};

beforeAll(async () => {
  upstream = await startUpstream();
  settings = {
    API_BASE_URL: `${upstream.url}/v1`,
    // Far from any case's timing, so a loaded machine cannot turn an answer into a timeout; the
    // deadline's own cases set theirs.
    API_TIMEOUT_MS: 5_000,
    API_MAX_RESPONSE_BYTES: 1_024,
  };
});

// A full budget (ten retries) for each case: the budget's own cases are in upstream-faults.test.ts.
beforeEach(() => {
  settings.retryBudget = { credits: 100 };
});

afterAll(async () => {
  await upstream.close();
});

const getOne = (options = settings) =>
  callApi(createIncoming(), getThing, { params: { id: "1" } }, options);
const createOne = () => callApi(createIncoming(), createThing, { body: { name: "x" } }, settings);
const BAD_ANSWER = { status: 502, code: "UPSTREAM_BAD_RESPONSE" };
const UNAVAILABLE = { status: 503, code: "UPSTREAM_UNAVAILABLE" };
const TIMEOUT = { status: 504, code: "UPSTREAM_TIMEOUT" };
const TOO_BIG = JSON.stringify({ id: "1", name: "x".repeat(2_000) });

describe("callApi", () => {
  it("sends the path, query and headers, and returns the answer, fields beyond its schema kept", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { id: "a/b", name: "Widget", extra: true }));
    const input = { params: { id: "a/b?c#d" }, query: { q: "x y&z", tag: ["1", "2"] } };
    const thing = await callApi(createIncoming(), getThing, input, settings);
    expect(thing).toEqual({ id: "a/b", name: "Widget", extra: true });
    expect(upstream.received).toHaveLength(1);
    const [received] = upstream.received;
    const url = "/v1/things/a%2Fb%3Fc%23d?q=x+y%26z&tag=1&tag=2";
    expect(received).toMatchObject({ method: "GET", url });
    const headers = { "x-request-id": "req-42", accept: "application/json" };
    expect(received!.headers).toMatchObject(headers);
  });

  it.each([
    ["../admin", "/v1/things/..%2Fadmin"],
    ["a?b=c", "/v1/things/a%3Fb%3Dc"],
    ["a#b", "/v1/things/a%23b"],
    ["%2e%2e", "/v1/things/%252e%252e"],
    ["%2F", "/v1/things/%252F"],
  ])("keeps %j inside its own path segment", async (id, path) => {
    upstream.handle((_req, res) => sendJson(res, 200, { id, name: "x" }));
    await callApi(createIncoming(), getThing, { params: { id } }, settings);
    expect(upstream.received[0]!.url).toBe(path);
  });

  it("leaves out query values that are unset, under a base URL with a trailing slash", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { id: "1", name: "x" }));
    const slashed = { ...settings, API_BASE_URL: `${upstream.url}/v1/` };
    const input = { params: { id: "1" }, query: { q: undefined } };
    await callApi(createIncoming(), getThing, input, slashed);
    expect(upstream.received[0]!.url).toBe("/v1/things/1");
  });

  it.each([[".."], ["."], [""], [undefined], [{ toString: (): string => "x" }]])(
    "refuses %j, which would change the path's shape, without calling the upstream",
    async (id) => {
      upstream.handle((_req, res) => sendJson(res, 200, { id: "x", name: "x" }));
      const call = callApi(createIncoming(), getThing, { params: { id: id as string } }, settings);
      expect(await getFailure(call)).toEqual({ status: 400, code: "BAD_REQUEST" });
      expect(upstream.received).toHaveLength(0);
    },
  );

  it("sends a JSON body", async () => {
    upstream.handle((_req, res, body) => sendJson(res, 201, { id: "1", ...JSON.parse(body) }));
    const input = { body: { name: 'Ünïcode "quoted"' } };
    const thing = await callApi(createIncoming(), createThing, input, settings);
    expect(thing).toEqual({ id: "1", name: 'Ünïcode "quoted"' });
    expect(upstream.received[0]).toMatchObject({ method: "POST", url: "/v1/things" });
    expect(upstream.received[0]!.headers["content-type"]).toBe("application/json");
  });

  it("sends a form body and accepts an empty answer", async () => {
    upstream.handle((_req, res) => res.writeHead(204).end());
    const input = { params: { id: "7" }, body: { note: "a&b=c d" } };
    expect(await callApi(createIncoming(), sendNote, input, settings)).toBeUndefined();
    expect(upstream.received[0]).toMatchObject({
      method: "PUT",
      url: "/v1/things/7/note",
      body: "note=a%26b%3Dc+d",
    });
    expect(upstream.received[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it("refuses input that does not match the call's schema", async () => {
    const input = { body: { name: 42 } as unknown as { name: string } };
    const failure = await getFailure(callApi(createIncoming(), createThing, input, settings));
    expect(failure).toEqual({ status: 400, code: "BAD_REQUEST" });
  });

  it.each<[string, (res: http.ServerResponse) => void]>([
    ["a response that does not match the schema", (res) => sendJson(res, 200, { id: 1 })],
    ["a response that is not JSON", (res) => res.end("not json")],
    [
      "a response over the size cap, declared by Content-Length",
      (res) => res.writeHead(200, { "content-length": TOO_BIG.length }).end(TOO_BIG),
    ],
    [
      "a response over the size cap, streamed without a length",
      (res) => res.writeHead(200, {}).end(TOO_BIG),
    ],
  ])("answers 502 to %s", async (_case, answer) => {
    upstream.handle((_req, res) => answer(res));
    expect(await getFailure(getOne())).toEqual(BAD_ANSWER);
  });

  it.each<[string, () => Promise<unknown>, number, object, number?]>([
    ["maps a 404 as the call declares", getOne, 404, { status: 404, code: "NOT_FOUND" }],
    ["answers 502 to a 4xx the call does not declare", createOne, 409, BAD_ANSWER],
    ["answers 502 to a 500 without retrying it", getOne, 500, BAD_ANSWER, 1],
    ["retries a GET answered 503 twice, then answers 503", getOne, 503, UNAVAILABLE, 3],
    ["never retries a POST", createOne, 503, UNAVAILABLE, 1],
  ])("%s", async (_name, call, status, failure, attempts) => {
    const body = status === 404 ? { error: "no such thing" } : {};
    upstream.handle((_req, res) => sendJson(res, status, body));
    expect(await getFailure(call())).toEqual(failure);
    if (attempts !== undefined) expect(upstream.received).toHaveLength(attempts);
  });

  it("succeeds when a retried 503 is followed by an answer", async () => {
    upstream.handle((_req, res) =>
      upstream.received.length < 2
        ? sendJson(res, 503, {})
        : sendJson(res, 200, { id: "1", name: "Back" }),
    );
    expect((await getOne()).name).toBe("Back");
    expect(upstream.received).toHaveLength(2);
  });

  it("answers 504 when the upstream is slower than the deadline, retries included", async () => {
    upstream.handle(() => {});
    const aborted = upstream.nextAbort();
    expect(await getFailure(getOne({ ...settings, API_TIMEOUT_MS: 1_000 }))).toEqual(TIMEOUT);
    await aborted;
  });

  it("stops retrying at the deadline", async () => {
    // A 503 at once, then no answer: only the deadline ends the retry.
    upstream.handle((_req, res) => upstream.received.length === 1 && sendJson(res, 503, {}));
    expect(await getFailure(getOne({ ...settings, API_TIMEOUT_MS: 1_000 }))).toEqual(TIMEOUT);
    expect(upstream.received).toHaveLength(2);
  });

  it("answers 503 when the connection is refused", async () => {
    const refused = { ...settings, API_BASE_URL: `http://127.0.0.1:${await getClosedPort()}` };
    expect(await getFailure(getOne(refused))).toEqual(UNAVAILABLE);
  });

  it("answers 502 when the connection is reset in the middle of the body", async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"id":"1",', () => res.socket?.resetAndDestroy());
    });
    expect(await getFailure(getOne())).toEqual(BAD_ANSWER);
  });

  it("does not follow a redirect to another origin", async () => {
    const elsewhere = await startUpstream();
    elsewhere.handle((_req, res) => sendJson(res, 200, { id: "1", name: "Elsewhere" }));
    upstream.handle((_req, res) =>
      res.writeHead(302, { location: `${elsewhere.url}/v1/things/1` }).end(),
    );
    try {
      expect(await getFailure(getOne())).toEqual(BAD_ANSWER);
      expect(elsewhere.received).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("stops the upstream request when the incoming request is aborted", async () => {
    upstream.handle(() => {});
    const aborted = upstream.nextAbort();
    const controller = new AbortController();
    const input = { params: { id: "1" } };
    const call = callApi(createIncoming(controller.signal), getThing, input, settings);
    await expect.poll(() => upstream.received.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    await aborted;
  });
});
