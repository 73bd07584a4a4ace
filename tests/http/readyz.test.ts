import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnglishError } from "../support/shell";
import { startServer, type RunningServer } from "../support/server";
import { getClosedPort, startUpstream, type Upstream } from "../support/upstream";

let upstream: Upstream;
let server: RunningServer;

beforeAll(async () => {
  upstream = await startUpstream();
  server = await startServer({
    API_BASE_URL: `${upstream.url}/api`,
    API_HEALTH_PATH: "/health",
    API_TIMEOUT_MS: "500",
  });
});

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

/** /readyz of a server of its own, started with `env`. */
async function askOwnServer(env: Record<string, string>) {
  const own = await startServer(env);
  try {
    const response = await fetch(`${own.url}/readyz`);
    return { status: response.status, body: (await response.json()) as unknown };
  } finally {
    await own.stop();
  }
}

describe("/readyz", () => {
  it.each([200, 204, 401, 403, 404, 405])(
    "is ready when the upstream answers its health path with %i",
    async (status) => {
      upstream.handle((_req, res) => res.writeHead(status).end());
      const headers = { "x-request-id": "ready-1" };
      const response = await fetch(`${server.url}/readyz`, { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await response.json()).toEqual({ status: "ok", upstream: "ok" });
      expect(upstream.received).toMatchObject([{ method: "GET", url: "/api/health" }]);
      expect(upstream.received[0]!.headers["x-request-id"]).toBe("ready-1");
    },
  );

  // Asked as every call is (callApi): a 503 is retried, a 500 is a bad answer.
  it.each([
    [500, "UPSTREAM_BAD_RESPONSE"],
    [503, "UPSTREAM_UNAVAILABLE"],
    [302, "UPSTREAM_BAD_RESPONSE"],
  ] as const)("is not ready when the upstream answers %i", async (status, code) => {
    upstream.handle((_req, res) => res.writeHead(status).end());
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(503);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const upstreamTitle = getEnglishError(code).title;
    expect(await response.json()).toEqual({ status: "unavailable", upstream: upstreamTitle, code });
  });

  it("is not ready when the upstream does not answer within API_TIMEOUT_MS", async () => {
    upstream.handle(() => {});
    const closed = upstream.nextAbort();
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      status: "unavailable",
      code: "UPSTREAM_TIMEOUT",
    });
    await closed;
  });

  it("answers HEAD with the status and no body", async () => {
    upstream.handle((_req, res) => res.writeHead(503).end());
    const response = await fetch(`${server.url}/readyz`, { method: "HEAD" });
    expect(response.status).toBe(503);
    expect(await response.text()).toBe("");
  });

  it("is not ready when the upstream refuses connections", async () => {
    const { status, body } = await askOwnServer({
      API_BASE_URL: `http://127.0.0.1:${await getClosedPort()}`,
    });
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: "unavailable", code: "UPSTREAM_UNAVAILABLE" });
  });

  it("is ready, saying so, when no upstream is configured", async () => {
    const { status, body } = await askOwnServer({});
    expect(status).toBe(200);
    expect(body).toEqual({ status: "ok", upstream: "not configured" });
  });
});
