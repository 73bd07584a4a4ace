import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { REPORTS } from "../../server/edge/report-endpoints";
import { parseResponse, sendRaw } from "../support/raw-http";
import { oneByteChunks } from "./hostile-requests";
import {
  expectNoServerErrors,
  projectRoot,
  startServer,
  startSuiteServer,
} from "../support/server";
import { getHeading } from "../support/html";
import { readRssMegabytes } from "../support/process-stats";

const FORM = "application/x-www-form-urlencoded";
const BODY_LIMIT = 1_048_576;

const postForm = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": FORM, ...headers },
    body: "a=1",
  });

/**
 * Sends headers, then streams `size` bytes in 64 KB pieces (after 100 Continue, when the headers
 * ask for it) until the server answers, or closes when `untilClosed`, as a hostile client would;
 * resolves with the status of the first answer.
 */
function sendLargeBody(
  port: number,
  size: number,
  chunked: boolean,
  { target = "/?index", type = FORM, headers = [] as string[], untilClosed = false } = {},
) {
  return new Promise<number>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const waitsForContinue = headers.includes("Expect: 100-continue");
    let answer = "";
    let answered = false;
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (waitsForContinue && answer === "HTTP/1.1 100 Continue\r\n\r\n") return writeMore();
      // Like a browser that has its answer: stop sending and hang up.
      if (!answered && !untilClosed) setImmediate(() => socket.end());
      answered = true;
    });
    socket.on("error", () => {});
    socket.on("close", () => resolve(parseResponse(answer).status));
    const piece = Buffer.alloc(64 * 1024, "a");
    const framedPiece = chunked
      ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")])
      : piece;
    socket.write(
      [
        `POST ${target} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        `Content-Type: ${type}`,
        chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${size}`,
        ...headers,
        "",
        "",
      ].join("\r\n"),
    );
    let sent = 0;
    function writeMore() {
      while ((untilClosed || !answered) && !socket.destroyed && sent < size) {
        sent += piece.length;
        if (!socket.write(framedPiece)) return void socket.once("drain", writeMore);
      }
      if (chunked && !answered && !socket.destroyed) socket.write("0\r\n\r\n");
    }
    if (!waitsForContinue) writeMore();
  });
}

/** Every route of the build with an action, and every report endpoint: its type and most bytes. */
async function readRoutesTakingBodies() {
  const buildUrl = pathToFileURL(path.join(projectRoot, "build/index.js")).href;
  const { routes } = (await import(buildUrl)) as ServerBuild;
  const pathOf = (id?: string): string => {
    const route = id === undefined ? undefined : routes[id];
    if (!route) return "";
    return route.path ? `${pathOf(route.parentId)}/${route.path}` : pathOf(route.parentId);
  };
  const actions = Object.values(routes).filter((route) => route.module.action);
  return [
    ...actions.map((route) => ({
      target: `${pathOf(route.id).replace(/:\w+|\*/g, "x") || "/"}${route.index ? "?index" : ""}`,
      type: FORM,
      limit: BODY_LIMIT,
    })),
    ...Object.values(REPORTS).map(({ path, types, maxBytes }) => ({
      target: path,
      type: types[0],
      limit: maxBytes,
    })),
  ];
}

describe("every route that takes a body", () => {
  // Only a route's limit can end a body that never ends here: the request timeout is an hour.
  const server = startSuiteServer({ REQUEST_TIMEOUT_MS: "3600000", METRICS_PORT: "0" });

  it("refuses a declared length over its limit at once, without 100 Continue, and a chunked body as it streams past it, then closes within the drain", async () => {
    const routes = await readRoutesTakingBodies();
    expect(routes.length).toBeGreaterThan(Object.keys(REPORTS).length);
    const answers = await Promise.all(
      routes.map(async ({ target, type, limit }) => [
        target,
        await sendLargeBody(server.port, limit + 1, false, {
          target,
          type,
          headers: ["Expect: 100-continue"],
        }),
        await sendLargeBody(server.port, Infinity, true, { target, type, untilClosed: true }),
      ]),
    );
    expect(answers).toEqual(routes.map(({ target }) => [target, 413, 413]));
  });

  it("drains a body an answer leaves unread a moment, then closes: a missing file, the metrics port", async () => {
    const statuses = await Promise.all([
      sendLargeBody(server.port, Infinity, true, { target: "/build/x.js", untilClosed: true }),
      sendLargeBody(server.metricsPort!, Infinity, true, { target: "/metrics", untilClosed: true }),
    ]);
    expect(statuses).toEqual([404, 404]);
  });
});

describe("with the default limits", () => {
  const server = startSuiteServer();

  it("keeps memory flat through 200 refused 5 MB bodies", async () => {
    const pid = server.child.pid!;
    const sendBatch = () =>
      Promise.all(
        Array.from({ length: 10 }, (_, i) => sendLargeBody(server.port, 5_000_000, i % 2 === 0)),
      );
    // Warm-up batches first, so the baseline includes the buffers any batch needs (Node 24 grows
    // its pools over the first few, then stays flat): the check is for growth.
    for (let batch = 0; batch < 5; batch++) await sendBatch();
    const before = readRssMegabytes(pid);
    const statuses: number[] = [];
    for (let batch = 0; batch < 20; batch++) statuses.push(...(await sendBatch()));
    const after = readRssMegabytes(pid);
    expect(statuses).toHaveLength(200);
    expect(new Set(statuses)).toEqual(new Set([413]));
    expect(after - before).toBeLessThan(50);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe("bodies in tiny pieces", () => {
  const server = startSuiteServer();

  it("refuses a body in 1-byte chunks with 400, keeping memory and time bounded", async () => {
    const pid = server.child.pid!;
    const before = readRssMegabytes(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, readRssMegabytes(pid))), 20);
    const request = oneByteChunks(`127.0.0.1:${server.port}`);
    const start = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => sendRaw(server.port, request)),
    );
    clearInterval(sampler);
    console.log(
      `4 bodies in 1-byte chunks: answered in ${Math.round(performance.now() - start)} ms, RSS grew ${Math.round(peak - before)} MB`,
    );
    expect(responses.map(({ status }) => status)).toEqual([400, 400, 400, 400]);
    // Pieces are copied into blocks, not kept (the memory before and after: docs/security.md).
    expect(peak - before).toBeLessThan(300);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe("slow clients", () => {
  it("drops a client that trickles its headers once the headers timeout passes, with 408", async () => {
    const server = await startServer({ HEADERS_TIMEOUT_MS: "1000" });
    try {
      const socket = net.connect(server.port, "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
      socket.on("error", () => {});
      const closed = new Promise((resolve) => socket.on("close", resolve));
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`);
      // One header line every 200 ms, for as long as the connection stays open.
      let linesSent = 0;
      const trickle = setInterval(
        () => socket.destroyed || socket.write(`X-Trickle-${linesSent++}: a\r\n`),
        200,
      );
      await closed;
      clearInterval(trickle);
      expect(parseResponse(answer).status).toBe(408);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expectNoServerErrors(server);
    } finally {
      await server.stop();
    }
  });
});

describe("rate limit", () => {
  const server = startSuiteServer({ RATE_LIMIT_PER_MINUTE: "3" });

  const post = (headers?: Record<string, string>) => postForm(server.url, headers);

  it("answers 429 with Retry-After and the error page once an address spends its budget", async () => {
    for (let i = 0; i < 3; i++) expect((await post()).status).toBe(405);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(refused.headers.get("content-security-policy")).toContain("script-src");
    expect(getHeading(await refused.text())).toBe("Too many requests");
  });

  it("does not let a forged X-Forwarded-For reset the budget", async () => {
    expect((await post({ "x-forwarded-for": "203.0.113.7" })).status).toBe(429);
    const raw = await sendRaw(
      server.port,
      `POST / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Forwarded-For: 198.51.100.1\r\nForwarded: for=198.51.100.2\r\nX-Real-IP: 198.51.100.3\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
    );
    expect(raw.status).toBe(429);
  });

  it("leaves reading alone", async () => {
    expect((await fetch(server.url)).status).toBe(200);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe("behind a trusted proxy (TRUST_PROXY=true)", () => {
  const server = startSuiteServer({ TRUST_PROXY: "true", RATE_LIMIT_PER_MINUTE: "2" });

  it("counts each client address the proxy reports separately", async () => {
    const post = (client: string) => postForm(server.url, { "x-forwarded-for": client });
    expect((await post("192.0.2.1")).status).toBe(405);
    expect((await post("192.0.2.1")).status).toBe(405);
    expect((await post("192.0.2.1")).status).toBe(429);
    expect((await post("192.0.2.2")).status).toBe(405);
  });

  it("takes the public scheme and host from the proxy for the cross-site check", async () => {
    const post = (headers: Record<string, string>) =>
      postForm(server.url, {
        origin: "https://app.example",
        "x-forwarded-for": "192.0.2.9",
        ...headers,
      });
    expect(
      (await post({ "x-forwarded-proto": "https", "x-forwarded-host": "app.example" })).status,
    ).toBe(405);
    expect((await post({ "x-forwarded-for": "192.0.2.10" })).status).toBe(403);
  });
});

describe("behind a trusted proxy, forwarded values that cannot make a URL", () => {
  const server = startSuiteServer({ TRUST_PROXY: "true" });

  it.each([
    ["X-Forwarded-Host: a b", 400],
    ["X-Forwarded-Host: evil.example/path", 400],
    ["X-Forwarded-Proto: javascript", 400],
    ["X-Forwarded-Host: app.example", 200],
  ])("%s → %i", async (header, status) => {
    const response = await sendRaw(
      server.port,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${header}\r\nConnection: close\r\n\r\n`,
    );
    expect(response.status).toBe(status);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
