import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "~/lib/errors";
import { getLogLines, startServer, type RunningServer } from "../support/server";
import { getClosedPort, sendJson, startUpstream, type Upstream } from "../support/upstream";
import { getHeading } from "../support/html";
import {
  buildReferenceApp,
  expectCataloguePage,
  referenceAppBuild as fixtureBuild,
} from "../support/reference-app";

// The app plus a route whose loader makes a fixture call (tests/fixtures/reference-app), built
// apart so the shipped app declares no calls; served by the real server, like the app itself.
const serverEnv = { API_TIMEOUT_MS: "1000", API_MAX_RESPONSE_BYTES: "1024" };

type Answer = (res: http.ServerResponse) => void;
function json(status: number, value = {}): Answer {
  return (res) => sendJson(res, status, value);
}

let upstream: Upstream;
let server: RunningServer;

beforeAll(async () => {
  await buildReferenceApp();
  upstream = await startUpstream();
  server = await startServer({ ...serverEnv, API_BASE_URL: upstream.url }, { cwd: fixtureBuild });
});

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

describe("a loader making a call", () => {
  it("renders the upstream's answer, having sent the path, query and request id", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { id: "a b", name: "From upstream" }));
    const headers = { "x-request-id": "page-1" };
    const response = await fetch(`${server.url}/call/a%20b?q=x%26y`, { headers });
    expect(response.status).toBe(200);
    expect(getHeading(await response.text())).toBe("From upstream");
    expect(upstream.received).toHaveLength(1);
    expect(upstream.received[0]).toMatchObject({ method: "GET", url: "/things/a%20b?q=x%26y" });
    expect(upstream.received[0]!.headers["x-request-id"]).toBe("page-1");
  });

  it("keeps a visitor's ../ inside its path segment", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { id: "x", name: "Encoded" }));
    const response = await fetch(`${server.url}/call/..%2Fadmin%3Fx%23y`);
    expect(response.status).toBe(200);
    expect(upstream.received[0]!.url).toBe("/things/..%2Fadmin%3Fx%23y");
  });

  const BAD = "UPSTREAM_BAD_RESPONSE";
  it.each<[string, Answer, ErrorCode, number?]>([
    ["a 404 the call maps", json(404), "NOT_FOUND"],
    ["a response not matching its schema", json(200, { id: 1 }), BAD],
    ["a 500", json(500), BAD],
    ["a 503, retried twice", json(503), "UPSTREAM_UNAVAILABLE", 3],
    ["a response over the size cap", json(200, { id: "1", name: "x".repeat(2_000) }), BAD],
    [
      "a redirect to another origin",
      (res) => res.writeHead(307, { location: "http://127.0.0.2/" }).end(),
      BAD,
    ],
    [
      "a reset in the middle of the body",
      (res) =>
        res
          .writeHead(200, { "content-length": "100" })
          .write('{"id":', () => res.socket?.resetAndDestroy()),
      BAD,
    ],
    ["no answer within API_TIMEOUT_MS", () => {}, "UPSTREAM_TIMEOUT"],
  ])("shows the catalogued page for %s", async (_case, answer, code, attempts = 1) => {
    upstream.handle((_req, res) => answer(res));
    await expectCataloguePage(await fetch(`${server.url}/call/1`), code);
    expect(upstream.received).toHaveLength(attempts);
    expect((await fetch(server.url)).status).toBe(200);
  });

  it("sends the catalogue code to client-side navigations too", async () => {
    upstream.handle((_req, res) => sendJson(res, 404, {}));
    const response = await fetch(`${server.url}/call/1.data`);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("NOT_FOUND");
  });

  it("closes the upstream request when the visitor goes away", async () => {
    upstream.handle(() => {});
    const upstreamClosed = upstream.nextAbort();
    const visitor = http.get(`${server.url}/call/1`);
    visitor.on("error", () => {});
    await expect.poll(() => upstream.received.length).toBe(1);
    visitor.destroy();
    await upstreamClosed;
    expect((await fetch(server.url)).status).toBe(200);
  });

  it("shows 503 when the upstream refuses connections", async () => {
    const env = { ...serverEnv, API_BASE_URL: `http://127.0.0.1:${await getClosedPort()}` };
    const refused = await startServer(env, { cwd: fixtureBuild });
    try {
      await expectCataloguePage(await fetch(`${refused.url}/call/1`), "UPSTREAM_UNAVAILABLE");
      expect((await fetch(refused.url)).status).toBe(200);
    } finally {
      await refused.stop();
    }
  });
});

describe("a page with deferred data", () => {
  it("streams its shell before the upstream answers and the data when it does", async () => {
    let answer = () => {};
    upstream.handle((_req, res) => {
      answer = () => sendJson(res, 200, { id: "1", name: "Arrived later" });
    });
    const page = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${server.url}/later/1`, resolve).on("error", reject),
    );
    let body = "";
    page.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    const ended = new Promise((resolve) => page.on("end", resolve));

    expect(page.statusCode).toBe(200);
    expect(page.headers["content-length"]).toBeUndefined();
    await expect.poll(() => body).toContain("Waiting for the thing");
    expect(body).not.toContain("Arrived later");
    expect(upstream.received).toHaveLength(1);

    answer();
    await ended;
    expect(getHeading(body)).toBe("Arrived later");
    expect(body).toContain("</html>");
  });

  it("is sent whole to a crawler, which should see the finished page", async () => {
    upstream.handle((_req, res) =>
      setTimeout(() => sendJson(res, 200, { id: "1", name: "Finished" }), 100),
    );
    const response = await fetch(`${server.url}/later/1`, {
      headers: {
        "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "accept-encoding": "identity",
      },
    });
    const html = await response.text();
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(html)));
    expect(getHeading(html)).toBe("Finished");
  });
});

describe("a crash", () => {
  it("is logged with the request it happened in, and the process exits 1", async () => {
    const crashing = await startServer(serverEnv, { cwd: fixtureBuild });
    const headers = { "x-request-id": "crash-1" };
    const visitor = fetch(`${crashing.url}/crash`, { headers }).catch((error: unknown) => error);
    expect(await crashing.exited).toBe(1);
    expect(await visitor).toBeInstanceOf(Error);
    const [fatal] = getLogLines(crashing, '"level":60');
    expect(fatal).toBeDefined();
    expect(JSON.parse(fatal!)).toMatchObject({
      msg: "uncaught exception",
      requestId: "crash-1",
      err: { message: "fixture crash" },
    });
  });
});
