import http from "node:http";
import zlib from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { buildReferenceApp, expectCataloguePage } from "../support/reference-app";
import { referenceAppBuild as cwd } from "../support/reference-app";
import { getLogLines, startSuiteServer, untilLoggedSoFar } from "../support/server";
import { answerRaw, sendJson, startUpstream, type Upstream } from "../support/upstream";

// Upstream faults as a visitor sees them: the fixture app's pages, served by the built server,
// in front of a scripted API that misbehaves down to the bytes on the wire.

const THING = JSON.stringify({ id: "1", name: "From upstream" });
const OK_HEAD = `HTTP/1.1 200 OK\r\nContent-Length: ${THING.length}\r\nConnection: close\r\n\r\n`;

let upstream: Upstream;

beforeAll(async () => {
  await buildReferenceApp();
  upstream = await startUpstream();
  return () => upstream.close();
});

// A deadline no answer here comes near, however busy the machine, and past the render's (10 s):
// a failure that came at once is told from one that waited for it by its outcome, a wait's a 504.
const DEADLINE_MS = 60_000;
const serverEnv = () => ({
  API_BASE_URL: upstream.url,
  API_TIMEOUT_MS: String(DEADLINE_MS),
  LOG_LEVEL: "info",
});
const startFailingServer = () =>
  startSuiteServer(serverEnv, { cwd, expectedStatuses: [502, 503, 504] });

function postForm(url: string, fields: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
}

describe("a page whose call gets a broken answer", () => {
  const server = startFailingServer();

  it.each<[string, string | Buffer]>([
    ["a garbage status line", `FOO BAR BAZ\r\n\r\n${THING}`],
    ["an HTTP/0.9 answer", THING],
    [
      "101 Switching Protocols",
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
    ],
    [
      "two different Content-Lengths",
      `HTTP/1.1 200 OK\r\nContent-Length: 40\r\nContent-Length: 5\r\n\r\n${THING}`,
    ],
    [
      "Transfer-Encoding with Content-Length",
      `HTTP/1.1 200 OK\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    [
      "six stacked Content-Encodings",
      Buffer.concat([
        Buffer.from(
          "HTTP/1.1 200 OK\r\nContent-Encoding: gzip, gzip, gzip, gzip, gzip, gzip\r\n\r\n",
        ),
        [1, 2, 3, 4, 5, 6].reduce((body) => zlib.gzipSync(body), Buffer.from(THING)),
      ]),
    ],
    [
      "20,000 headers",
      `HTTP/1.1 200 OK\r\n${Array.from({ length: 20_000 }, (_, i) => `X-H-${i}: v\r\n`).join("")}\r\n${THING}`,
    ],
  ])("shows the 502 page at once, with one request to the API: %s", async (_case, answer) => {
    upstream.handleRaw(answerRaw(answer));
    await expectCataloguePage(await fetch(`${server.url}/call/1`), "UPSTREAM_BAD_RESPONSE");
    expect(upstream.received).toHaveLength(1);
  });

  it("reads a 200 after a 100 Continue", async () => {
    upstream.handleRaw(answerRaw("HTTP/1.1 100 Continue\r\n\r\n", OK_HEAD, THING));
    const response = await fetch(`${server.url}/call/1`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("<h1>From upstream</h1>");
  });

  it("refuses JSON nested 100,000 deep before it reaches the page", async () => {
    const deep = `{"id":"1","extra":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    upstream.handleRaw(answerRaw(`HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n`, deep));
    // A 200 KB answer, under the default 1 MB cap: only the depth is wrong.
    await expectCataloguePage(await fetch(`${server.url}/faults/loose/1`), "UPSTREAM_BAD_RESPONSE");
    expect(server.output()).not.toContain("Maximum call stack size exceeded");
  });
});

describe("a page whose call finds the API busy or unreachable", () => {
  const server = startFailingServer();

  it("shows the 503 page for a 429, after retrying the read", async () => {
    upstream.handle((_req, res) => sendJson(res, 429, {}));
    await expectCataloguePage(await fetch(`${server.url}/call/1`), "UPSTREAM_UNAVAILABLE");
    expect(upstream.received).toHaveLength(3);
  });

  it("shows the 503 page at once when Retry-After is beyond the deadline", async () => {
    upstream.handle((_req, res) => sendJson(res, 503, {}, { "retry-after": "3600" }));
    await expectCataloguePage(await fetch(`${server.url}/call/1`), "UPSTREAM_UNAVAILABLE");
    expect(upstream.received).toHaveLength(1);
  });

  it("retries a read whose connection was reset after the API read it", async () => {
    upstream.handleRaw((socket) => socket.resetAndDestroy());
    await expectCataloguePage(await fetch(`${server.url}/call/1`), "UPSTREAM_UNAVAILABLE");
    expect(upstream.received).toHaveLength(3);
  });

  it("never replays a DELETE whose connection was reset after the API read it", async () => {
    upstream.handleRaw((socket) => socket.resetAndDestroy());
    const response = await postForm(`${server.url}/faults/delete/1`);
    await expectCataloguePage(response, "UPSTREAM_UNAVAILABLE");
    expect(upstream.received).toMatchObject([{ method: "DELETE", url: "/things/1" }]);
  });

  it("replays a POST with an idempotency key under the same key, until it is answered", async () => {
    upstream.handleRaw((socket) =>
      upstream.received.length < 3
        ? socket.resetAndDestroy()
        : answerRaw(OK_HEAD.replace("200 OK", "201 Created"), THING)(socket),
    );
    const response = await postForm(`${server.url}/faults/create`, { name: "Widget" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/things/1");
    const keys = new Set(upstream.received.map((request) => request.headers["idempotency-key"]));
    expect(upstream.received).toHaveLength(3);
    expect(keys.size).toBe(1);
    expect(upstream.received[0]!.body).toBe('{"name":"Widget"}');
  });
});

describe("the retry budget of one instance", () => {
  const server = startFailingServer();

  it("keeps a failing API's load to about 1.1 times the visits", async () => {
    upstream.handle((_req, res) => sendJson(res, 503, {}));
    const visits = 100;
    const visit = () => fetch(`${server.url}/call/1`);
    for (let batch = 0; batch < visits / 10; batch++) {
      const pages = await Promise.all(Array.from({ length: 10 }, visit));
      expect(pages.map((page) => page.status)).toEqual(Array(10).fill(503));
    }
    const load = upstream.received.length / visits;
    console.info(
      `${visits} visits, API answering 503: ${upstream.received.length} requests (${load.toFixed(2)}x)`,
    );
    expect(upstream.received.length).toBeLessThanOrEqual(visits * 1.1 + 10);
  });
});

describe("headers", () => {
  const server = startSuiteServer(serverEnv, { cwd });

  it("stay on their side: nothing of the visitor's reaches the API, nothing of the API's the visitor", async () => {
    const headers = {
      "set-cookie": "upstream=1",
      location: "https://elsewhere.example/",
      "content-security-policy": "default-src *",
      "x-upstream": "1",
    };
    upstream.handle((_req, res) => sendJson(res, 200, { id: "1", name: "Isolated" }, headers));
    const response = await fetch(`${server.url}/call/1`, {
      headers: {
        cookie: "theme=dark; session=secret",
        authorization: "Bearer visitor-token",
        "x-forwarded-for": "203.0.113.9",
        "x-request-id": "isolated-1",
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        tracestate: "visitor=1",
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.headers.get("location")).toBeNull();
    expect(response.headers.get("x-upstream")).toBeNull();
    expect(response.headers.get("content-security-policy")).not.toContain("default-src *");
    // The trace is this server's own (no trusted proxy here), not the visitor's.
    expect(Object.keys(upstream.received[0]!.headers).sort()).toEqual(
      ["accept", "accept-encoding", "connection", "host", "traceparent", "x-request-id"].sort(),
    );
    expect(upstream.received[0]!.headers.traceparent).not.toContain(
      "4bf92f3577b34da6a3ce929d0e0e4736",
    );
  });
});

describe("a streamed page whose data is pending", () => {
  const server = startSuiteServer(serverEnv, { cwd });

  /** The page opened as a browser opens it (a crawler is sent it whole), and what came so far. */
  async function openLaterPage(requestId: string) {
    const page = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get(`${server.url}/later/1`, { headers: { "x-request-id": requestId } }, resolve)
        .on("error", reject),
    );
    let body = "";
    page.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    page.on("error", () => {});
    return { page, body: () => body, ended: new Promise((resolve) => page.on("end", resolve)) };
  }

  /** What the server logged of the request, its request line apart. */
  const readLines = (requestId: string) =>
    getLogLines(server, `"requestId":"${requestId}"`)
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.msg !== "request");

  it("ends at the render's deadline with its fallback and one warning, the data never settling", async () => {
    upstream.handle(() => {});
    const { page, body, ended } = await openLaterPage("stalled-1");
    await ended;
    expect(page.statusCode).toBe(200);
    expect(body()).toContain("Waiting for the thing");
    expect(body()).toContain("</html>");
    await untilLoggedSoFar(server);
    expect(readLines("stalled-1")).toMatchObject([
      { level: 40, msg: "render stopped at its deadline" },
    ]);
  });

  it("logs one departure at info level when the visitor leaves, and cancels the call", async () => {
    upstream.handle(() => {});
    const upstreamClosed = upstream.nextAbort();
    const { page, body } = await openLaterPage("leaver-1");
    await expect.poll(body).toContain("Waiting for the thing");
    page.destroy();
    await upstreamClosed;
    const departure = "visitor left before the page was complete";
    await expect.poll(() => readLines("leaver-1").map((line) => line.msg)).toContain(departure);
    // React reports the departure once per pending part, in the same turn: all logged by now.
    await untilLoggedSoFar(server);
    expect(readLines("leaver-1")).toMatchObject([{ level: 30, msg: departure }]);
  });
});
