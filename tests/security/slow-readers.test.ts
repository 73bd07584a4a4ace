import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countOpenSockets } from "../support/process-stats";
import { buildReferenceApp, referenceAppBuild } from "../support/reference-app";
import { LOOP_DELAY_OPTIONS } from "../support/request-cost";
import { startSuiteServer } from "../support/server";
import {
  findLargestChunk,
  MAX_MEMORY_GROWTH_MB,
  measureUnderAttack,
  openNonReaders,
} from "../support/slow-clients";
import { sendJson, startUpstream, type Upstream } from "../support/upstream";

// Short, so the tests wait little; the default is for real slow clients (docs/configuration.md).
const SEND_TIMEOUT_MS = 1_000;
// Uncompressed, 16 answers of it outgrow what the kernel buffers for a client that does not read.
const chunk = findLargestChunk();
const STALLED = "closed a connection whose client stopped reading its answer";
const sixteenRequests = `GET ${chunk.url} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(16);

describe("clients that stop reading", () => {
  // Keep-alive as short, so a connection whose answers all fitted in the kernel's buffers goes as soon.
  const server = startSuiteServer({
    SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
    KEEP_ALIVE_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
    NODE_OPTIONS: LOOP_DELAY_OPTIONS,
  });

  it("lose their connections once their answers make no progress for SEND_TIMEOUT_MS", async () => {
    const pid = server.child.pid!;
    const idleSockets = countOpenSockets(pid);
    let opened = false;
    // Until the server has closed them all itself: the client side closes none before.
    const allClosed = () => {
      opened ||= countOpenSockets(pid) > idleSockets + 50;
      return opened && countOpenSockets(pid) <= idleSockets;
    };
    const { idle, peak, after } = await measureUnderAttack(
      server,
      "100 connections × 16 uncompressed requests, never read, SEND_TIMEOUT_MS=1000",
      () => openNonReaders(server.port, 100, sixteenRequests),
      0,
      allClosed,
    );
    expect(peak - idle).toBeLessThan(MAX_MEMORY_GROWTH_MB);
    expect(after - idle).toBeLessThan(MAX_MEMORY_GROWTH_MB);
    expect(server.output()).toContain(STALLED);
  });
});

describe("a client that reads slowly but steadily", () => {
  // Far longer than the reader's pauses, however late a busy machine wakes it.
  const SLOW_SEND_TIMEOUT_MS = 5_000;
  const server = startSuiteServer({ SEND_TIMEOUT_MS: String(SLOW_SEND_TIMEOUT_MS) });

  it("keeps its connection for longer than SEND_TIMEOUT_MS", async () => {
    const logBefore = server.output().length;
    const socket = net.connect(server.port, "127.0.0.1");
    socket.pause();
    let received = 0;
    socket.on("data", (chunk: Buffer) => (received += chunk.length));
    socket.write(sixteenRequests);
    // What one read holds, every 100 ms, for longer than the timeout; then everything at once.
    const slowUntil = performance.now() + 1.5 * SLOW_SEND_TIMEOUT_MS;
    while (performance.now() < slowUntil) {
      await sleep(100);
      socket.read();
    }
    const receivedSlowly = received;
    socket.resume();
    await expect.poll(() => received).toBeGreaterThan(16 * chunk.size);
    console.log(
      `a slow reader took ${receivedSlowly} bytes in ${1.5 * SLOW_SEND_TIMEOUT_MS} ms, then the rest of its 16 answers`,
    );
    expect(server.output().slice(logBefore)).not.toContain("stopped reading");
    socket.destroy();
  });
});

describe("a server that is slow itself", () => {
  let upstream: Upstream;
  beforeAll(async () => {
    await buildReferenceApp();
    upstream = await startUpstream();
  });
  afterAll(() => upstream?.close());

  const server = startSuiteServer(() => ({ API_BASE_URL: upstream.url, SEND_TIMEOUT_MS: "300" }), {
    cwd: referenceAppBuild,
  });

  it("is not a stalled answer: a page whose call takes longer than SEND_TIMEOUT_MS still arrives", async () => {
    upstream.handle(
      (_req, res) => void setTimeout(() => sendJson(res, 200, { id: "1", name: "Late" }), 1_000),
    );
    const response = await fetch(`${server.url}/call/1`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Late");
  });
});
