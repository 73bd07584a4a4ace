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

describe("callApi", () => {
  it("sends the path, query and headers, and returns the parsed response", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { id: "a/b", name: "Widget", extra: true }));
    const thing = await callApi(
      createIncoming(),
      getThing,
      { params: { id: "a/b?c#d" }, query: { q: "x y&z", tag: ["1", "2"] } },
      settings,
    );
    expect(thing).toEqual({ id: "a/b", name: "Widget" });
    expect(upstream.received).toHaveLength(1);
    const [received] = upstream.received;
    expect(received).toMatchObject({
      method: "GET",
      url: "/v1/things/a%2Fb%3Fc%23d?q=x+y%26z&tag=1&tag=2",
    });
    expect(received!.headers).toMatchObject({
      "x-request-id": "req-42",
      accept: "application/json",
    });
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
    await callApi(
      createIncoming(),
      getThing,
      { params: { id: "1" }, query: { q: undefined } },
      slashed,
    );
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
    const thing = await callApi(
      createIncoming(),
      createThing,
      { body: { name: 'Ünïcode "quoted"' } },
      settings,
    );
    expect(thing).toEqual({ id: "1", name: 'Ünïcode "quoted"' });
    expect(upstream.received[0]).toMatchObject({ method: "POST", url: "/v1/things" });
    expect(upstream.received[0]!.headers["content-type"]).toBe("application/json");
  });

  it("sends a form body and accepts an empty answer", async () => {
    upstream.handle((_req, res) => res.writeHead(204).end());
    const result = await callApi(
      createIncoming(),
      sendNote,
      { params: { id: "7" }, body: { note: "a&b=c d" } },
      settings,
    );
    expect(result).toBeUndefined();
    expect(upstream.received[0]).toMatchObject({
      method: "PUT",
      url: "/v1/things/7/note",
      body: "note=a%26b%3Dc+d",
    });
    expect(upstream.received[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it("refuses input that does not match the call's schema", async () => {
    const failure = await getFailure(
      callApi(
        createIncoming(),
        createThing,
        { body: { name: 42 } as unknown as { name: string } },
        settings,
      ),
    );
    expect(failure).toEqual({ status: 400, code: "BAD_REQUEST" });
  });

  it.each([
    ["a response that does not match the schema", { id: 1 }],
    ["a response that is not JSON", "not json"],
  ])("answers 502 to %s", async (_case, value) => {
    upstream.handle((_req, res) =>
      typeof value === "string" ? res.end(value) : sendJson(res, 200, value),
    );
    const failure = await getFailure(
      callApi(createIncoming(), getThing, { params: { id: "1" } }, settings),
    );
    expect(failure).toEqual({ status: 502, code: "UPSTREAM_BAD_RESPONSE" });
  });

  it("maps a 404 as the call declares", async () => {
    upstream.handle((_req, res) => sendJson(res, 404, { error: "no such thing" }));
    const failure = await getFailure(
      callApi(createIncoming(), getThing, { params: { id: "1" } }, settings),
    );
    expect(failure).toEqual({ status: 404, code: "NOT_FOUND" });
  });

  it("answers 502 to a 4xx the call does not declare", async () => {
    upstream.handle((_req, res) => sendJson(res, 409, {}));
    const failure = await getFailure(
      callApi(createIncoming(), createThing, { body: { name: "x" } }, settings),
    );
    expect(failure).toEqual({ status: 502, code: "UPSTREAM_BAD_RESPONSE" });
  });

  it("answers 502 to a 500 without retrying it", async () => {
    upstream.handle((_req, res) => sendJson(res, 500, {}));
    const failure = await getFailure(
      callApi(createIncoming(), getThing, { params: { id: "1" } }, settings),
    );
    expect(failure).toEqual({ status: 502, code: "UPSTREAM_BAD_RESPONSE" });
    expect(upstream.received).toHaveLength(1);
  });

  it("retries a GET answered 503 twice, then answers 503", async () => {
    upstream.handle((_req, res) => sendJson(res, 503, {}));
    const failure = await getFailure(
      callApi(createIncoming(), getThing, { params: { id: "1" } }, settings),
    );
    expect(failure).toEqual({ status: 503, code: "UPSTREAM_UNAVAILABLE" });
    expect(upstream.received).toHaveLength(3);
  });

  it("succeeds when a retried 503 is followed by an answer", async () => {
    upstream.handle((_req, res) =>
      upstream.received.length < 2
        ? sendJson(res, 503, {})
        : sendJson(res, 200, { id: "1", name: "Back" }),
    );
    const thing = await callApi(createIncoming(), getThing, { params: { id: "1" } }, settings);
    expect(thing.name).toBe("Back");
    expect(upstream.received).toHaveLength(2);
  });

  it("never retries a POST", async () => {
    upstream.handle((_req, res) => sendJson(res, 503, {}));
    const failure = await getFailure(
      callApi(createIncoming(), createThing, { body: { name: "x" } }, settings),
    );
    expect(failure).toEqual({ status: 503, code: "UPSTREAM_UNAVAILABLE" });
    expect(upstream.received).toHaveLength(1);
  });

  it("answers 504 when the upstream is slower than the deadline, retries included", async () => {
    upstream.handle(() => {});
    const aborted = upstream.nextAbort();
    const oneSecond = { ...settings, API_TIMEOUT_MS: 1_000 };
    const failure = await getFailure(
      callApi(createIncoming(), getThing, { params: { id: "1" } }, oneSecond),
    );
    expect(failure).toEqual({ status: 504, code: "UPSTREAM_TIMEOUT" });
    await aborted;
  });

  it("stops retrying at the deadline", async () => {
    // A 503 at once, then no answer: only the deadline ends the retry.
    upstream.handle((_req, res) => upstream.received.length === 1 && sendJson(res, 503, {}));
    const oneSecond = { ...settings, API_TIMEOUT_MS: 1_000 };
    const failure = await getFailure(
      callApi(createIncoming(), getThing, { params: { id: "1" } }, oneSecond),
    );
    expect(failure).toEqual({ status: 504, code: "UPSTREAM_TIMEOUT" });
    expect(upstream.received).toHaveLength(2);
  });

  it("answers 503 when the connection is refused", async () => {
    const refused = { ...settings, API_BASE_URL: `http://127.0.0.1:${await getClosedPort()}` };
    const failure = await getFailure(
      callApi(createIncoming(), getThing, { params: { id: "1" } }, refused),
    );
    expect(failure).toEqual({ status: 503, code: "UPSTREAM_UNAVAILABLE" });
  });

  it("answers 502 when the connection is reset in the middle of the body", async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"id":"1",', () => res.socket?.resetAndDestroy());
    });
    const failure = await getFailure(
      callApi(createIncoming(), getThing, { params: { id: "1" } }, settings),
    );
    expect(failure).toEqual({ status: 502, code: "UPSTREAM_BAD_RESPONSE" });
  });

  it.each([
    ["declared by Content-Length", true],
    ["streamed without a length", false],
  ])("answers 502 to a response over the size cap, %s", async (_case, declared) => {
    const body = JSON.stringify({ id: "1", name: "x".repeat(2_000) });
    upstream.handle((_req, res) => {
      res.writeHead(200, declared ? { "content-length": body.length } : {});
      res.end(body);
    });
    const failure = await getFailure(
      callApi(createIncoming(), getThing, { params: { id: "1" } }, settings),
    );
    expect(failure).toEqual({ status: 502, code: "UPSTREAM_BAD_RESPONSE" });
  });

  it("does not follow a redirect to another origin", async () => {
    const elsewhere = await startUpstream();
    elsewhere.handle((_req, res) => sendJson(res, 200, { id: "1", name: "Elsewhere" }));
    upstream.handle((_req, res) =>
      res.writeHead(302, { location: `${elsewhere.url}/v1/things/1` }).end(),
    );
    try {
      const failure = await getFailure(
        callApi(createIncoming(), getThing, { params: { id: "1" } }, settings),
      );
      expect(failure).toEqual({ status: 502, code: "UPSTREAM_BAD_RESPONSE" });
      expect(elsewhere.received).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("stops the upstream request when the incoming request is aborted", async () => {
    upstream.handle(() => {});
    const aborted = upstream.nextAbort();
    const controller = new AbortController();
    const call = callApi(
      createIncoming(controller.signal),
      getThing,
      { params: { id: "1" } },
      settings,
    );
    await expect.poll(() => upstream.received.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    await aborted;
  });
});
