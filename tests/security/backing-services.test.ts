import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDelayingProxy, type DelayingProxy } from "../support/delaying-proxy";
import { startRedis, type Redis } from "../support/redis";
import { askServer, expectNoServerErrors, startServer, type RunningServer } from "../support/server";

// The shared write limit through every state its Redis can be in: each ends with Redis well
// again, and writes counted again within a few seconds, a write over the limit refused.

const LIMIT = 3;
// Redis answers LOADING for a few seconds while it loads this many keys.
const DATASET_KEYS = 20_000;
const KEY_LOAD_DELAY_US = 50;
// "Within a few seconds of Redis being ready."
const MAX_RECOVERY_MS = 5_000;
const loopDelayScript = pathToFileURL(path.join(import.meta.dirname, "../support/loop-delay.js")).href;
const form = new URLSearchParams({ theme: "dark", redirectTo: "/" }).toString();

let redis: Redis;
let proxy: DelayingProxy;
let server: RunningServer;
let dataDir: string;
const figures: string[] = [];
// Each write comes from its own forwarded address unless told: a fresh budget, counted from zero.
let addresses = 0;
const nextAddress = () => {
  const n = ++addresses;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "redis-data-"));
  redis = await startRedis({ dir: dataDir });
  proxy = await startDelayingProxy(Number(new URL(redis.url).port));
  server = await startServer({
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
    TRUST_PROXY: "true",
    NODE_OPTIONS: `--import ${loopDelayScript}`,
  });
  await untilCounted();
  // The loop's delay is read from here on, start-up apart.
  await askServer(server, "loop-delay");
});

afterAll(async () => {
  redis?.resume();
  console.log(`the shared limit through its Redis's states:\n${figures.join("\n")}`);
  try {
    if (server) expectNoServerErrors(server, []);
  } finally {
    await server?.stop();
    await proxy?.close();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

async function postTheme(address = nextAddress()) {
  const started = performance.now();
  const response = await fetch(`${server.url}/preferences/theme`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
    body: form,
  });
  await response.arrayBuffer();
  // The limiter sets its header only on a write it counted.
  return {
    status: response.status,
    counted: response.headers.has("ratelimit"),
    ms: performance.now() - started,
  };
}

/** Writes until one is counted; resolves with how long that took. */
async function untilCounted() {
  const started = performance.now();
  while (!(await postTheme()).counted) {
    expect(performance.now() - started).toBeLessThan(15_000);
    await sleep(50);
  }
  return performance.now() - started;
}

/** Writes are counted again: LIMIT from one address pass, the next is refused. */
async function expectCountedAgain(state: string, readyAt: number) {
  await untilCounted();
  const sinceReady = performance.now() - readyAt;
  expect(sinceReady).toBeLessThan(MAX_RECOVERY_MS);
  const address = nextAddress();
  const statuses = [];
  for (let i = 0; i <= LIMIT; i++) statuses.push((await postTheme(address)).status);
  expect(statuses).toEqual([...Array(LIMIT).fill(303), 429]);
  const { maxMs } = await askServer<{ maxMs: number }>(server, "loop-delay");
  figures.push(
    `  ${state.padEnd(26)} counted again ${Math.round(sinceReady)} ms after Redis was ready; loop delay max ${maxMs} ms`,
  );
}

const countingLines = () => server.output().match(/rate limit: counting in Redis/g)?.length ?? 0;
const failureLines = () => server.output().match(/rate limit: Redis failed/g)?.length ?? 0;

/** Four visitors writing back to back until `until` settles; every answer is the write's own. */
async function writeThroughout(until: Promise<unknown>) {
  let writing = true;
  const writes: Awaited<ReturnType<typeof postTheme>>[] = [];
  const visitors = Array.from({ length: 4 }, async () => {
    while (writing) writes.push(await postTheme());
  });
  await until.finally(() => (writing = false));
  await Promise.all(visitors);
  expect(writes.filter((write) => write.status !== 303)).toEqual([]);
  return writes;
}

const slowest = (writes: { ms: number }[]) => Math.round(Math.max(...writes.map((write) => write.ms)));

describe("the shared limit", () => {
  it("lets writes through while Redis is down, and counts again once it is back", async () => {
    await redis.stop();
    const writes = await writeThroughout(sleep(1_000));
    expect(writes.every((write) => !write.counted)).toBe(true);
    await redis.start();
    await expectCountedAgain(`down (slowest ${slowest(writes)} ms)`, performance.now());
  });

  it("holds writes at most a moment while Redis is frozen, and counts again once it thaws", async () => {
    redis.pause();
    const writes = await writeThroughout(sleep(1_500));
    redis.resume();
    expect(slowest(writes)).toBeLessThan(2_000);
    await expectCountedAgain(`frozen (slowest ${slowest(writes)} ms)`, performance.now());
  });

  it("counts through a slow Redis, lets writes through when it is slower than the deadline, and counts again", async () => {
    proxy.setDelay(60);
    const slow = [];
    for (let i = 0; i < 5; i++) slow.push(await postTheme());
    expect(slow.every((write) => write.counted)).toBe(true);
    proxy.setDelay(600);
    const slower = await writeThroughout(sleep(1_500));
    expect(slowest(slower)).toBeLessThan(2_000);
    proxy.setDelay(0);
    await expectCountedAgain(
      `slow (60 ms: slowest ${slowest(slow)} ms; 600 ms: slowest ${slowest(slower)} ms)`,
      performance.now(),
    );
  });

  it("lets writes through while Redis refuses them, says so once, and counts again once it takes them", async () => {
    const admin = createClient({ url: redis.url });
    await admin.connect();
    const [failedBefore, countedBefore] = [failureLines(), countingLines()];
    // Redis refuses every write (NOREPLICAS) but still takes the scripts, as a replica would.
    await admin.sendCommand(["CONFIG", "SET", "min-replicas-to-write", "1"]);
    const writes = await writeThroughout(sleep(1_000));
    expect(writes.every((write) => !write.counted)).toBe(true);
    expect([failureLines(), countingLines()]).toEqual([failedBefore + 1, countedBefore]);
    await admin.sendCommand(["CONFIG", "SET", "min-replicas-to-write", "0"]);
    admin.destroy();
    await expectCountedAgain(`refusing writes (${writes.length} writes)`, performance.now());
  });

  it("recovers from a Redis restarted under writes that answers LOADING while it loads its data", async () => {
    const filler = createClient({ url: redis.url });
    await filler.connect();
    await filler.sendCommand([
      "EVAL",
      `for i = 1, ${DATASET_KEYS} do redis.call("SET", "k" .. i, i) end`,
      "0",
    ]);
    await filler.sendCommand(["SAVE"]);
    filler.destroy();
    const countedBefore = countingLines();

    const restart = (async () => {
      await redis.stop();
      await redis.start({ keyLoadDelayUs: KEY_LOAD_DELAY_US });
      const loadingFrom = performance.now();
      // The server reconnects while Redis is still loading: its scripts are refused.
      await sleep(2_500);
      expect(countingLines()).toBe(countedBefore);
      await redis.loaded();
      return performance.now() - loadingFrom;
    })();
    const writes = await writeThroughout(restart);
    const loadingMs = await restart;
    const readyAt = performance.now();
    expect(loadingMs).toBeGreaterThan(2_500);
    await expectCountedAgain(
      `loading ${Math.round(loadingMs)} ms under ${writes.length} writes (slowest ${slowest(writes)} ms)`,
      readyAt,
    );
    expect(countingLines()).toBe(countedBefore + 1);
  });

  it("said each failure and each recovery once, not once a write", () => {
    figures.push(`  log: ${countingLines()} "counting in Redis", ${failureLines()} "Redis failed"`);
    // The five states, the slow one twice (past the deadline, then the new connection's load).
    expect(failureLines()).toBeLessThanOrEqual(10);
    expect(countingLines()).toBeLessThanOrEqual(failureLines() + 1);
  });
});
