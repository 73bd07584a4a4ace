import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDelayingProxy, type DelayingProxy } from "../support/delaying-proxy";
import { startRedis, type Redis } from "../support/redis";
import { LOOP_DELAY_OPTIONS, readLoopDelay } from "../support/request-cost";
import {
  expectNoServerErrors,
  getLogLines,
  startServer,
  type RunningServer,
} from "../support/server";

// The shared write limit through every state its Redis can be in. Writes are counted, not timed:
// one that waited for a Redis that cannot answer would never be answered while it stays so.

const LIMIT = 3;
// Redis answers LOADING for at least five seconds while it loads this many keys.
const DATASET_KEYS = 20_000;
const KEY_LOAD_DELAY_US = 250;
// Writes answered while Redis cannot count them, in each state.
const WRITES = 12;
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

const startedAt = performance.now();

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "redis-data-"));
  redis = await startRedis({ dir: dataDir });
  proxy = await startDelayingProxy({ path: redis.socketPath });
  server = await startServer({
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
    TRUST_PROXY: "true",
    NODE_OPTIONS: LOOP_DELAY_OPTIONS,
  });
  await untilCounted();
  // The loop's delay is read from here on, start-up apart.
  await readLoopDelay(server);
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
  const ms = performance.now() - started;
  // The limiter sets its header only on a write it counted.
  const counted = response.headers.has("ratelimit");
  return { status: response.status, counted, startedAt: started, ms };
}

/** Writes until one is counted (in hooks too: the test's or hook's timeout catches a hang). */
async function untilCounted() {
  while (!(await postTheme()).counted) await sleep(50);
}

// A write Redis answered too late passes without a count header, though Redis may still have
// counted it: at least LIMIT pass, at most LIMIT with the header, then one is refused.
async function expectCountedAgain(state: string) {
  const readyAt = performance.now();
  await untilCounted();
  const sinceReady = performance.now() - readyAt;
  const address = nextAddress();
  const passed: Write[] = [];
  let refused = false;
  while (!refused && passed.length < 50) {
    const write = await postTheme(address);
    if (write.status === 429) refused = true;
    else passed.push(write);
  }
  expect(refused).toBe(true);
  expect(passed.map((write) => write.status)).toEqual(Array(passed.length).fill(303));
  expect(passed.length).toBeGreaterThanOrEqual(LIMIT);
  expect(passed.filter((write) => write.counted).length).toBeLessThanOrEqual(LIMIT);
  const { maxMs } = await readLoopDelay(server);
  figures.push(
    `  ${state.padEnd(26)} counted again ${Math.round(sinceReady)} ms after Redis was ready; loop delay max ${maxMs} ms`,
  );
}

const countingLines = () => getLogLines(server, "rate limit: counting in Redis").length;
const failureLines = () => getLogLines(server, "rate limit: Redis failed").length;

type Write = Awaited<ReturnType<typeof postTheme>>;

/** Four visitors writing until `until` settles, or until that many writes were answered. */
async function writeThroughout(until: Promise<unknown> | number, writes: Write[] = []) {
  let writing = true;
  const visitors = Array.from({ length: 4 }, async () => {
    while (writing && (typeof until !== "number" || writes.length < until)) {
      writes.push(await postTheme());
      await sleep(20);
    }
  });
  if (typeof until !== "number") await until.finally(() => (writing = false));
  await Promise.all(visitors);
  expect(writes.filter((write) => write.status !== 303)).toEqual([]);
  return writes;
}

const slowest = (writes: { ms: number }[]) =>
  Math.round(Math.max(...writes.map((write) => write.ms)));

describe("the shared limit", () => {
  it("lets writes through while Redis is down, and counts again once it is back", async () => {
    await redis.stop();
    const writes = await writeThroughout(WRITES);
    expect(writes.every((write) => !write.counted)).toBe(true);
    await redis.start();
    await expectCountedAgain(`down (slowest ${slowest(writes)} ms)`);
  });

  it("holds writes at most a moment while Redis is frozen, and counts again once it thaws", async () => {
    const opened = proxy.connections();
    redis.pause();
    const writes = await writeThroughout(WRITES);
    // The writes sent on the connection that timed out waited for it; it was replaced once, and
    // the writes after found the new one not ready and went through at once.
    expect(proxy.connections() - opened).toBe(1);
    redis.resume();
    expect(writes.every((write) => !write.counted)).toBe(true);
    await expectCountedAgain(`frozen (slowest ${slowest(writes)} ms)`);
  });

  it("counts through a slow Redis, lets writes through when it is slower than the deadline, and counts again", async () => {
    proxy.setDelay(25);
    const slow: Write[] = [];
    const counted = () => slow.filter((write) => write.counted).length;
    // Counted, though each command takes a fifth of its deadline. A busy machine may push some
    // over it, and a write after one that was not counted loads the scripts again first.
    while (counted() < 3) slow.push(await postTheme());
    proxy.hold();
    const held = await writeThroughout(WRITES);
    proxy.release();
    proxy.setDelay(0);
    expect(held.every((write) => !write.counted)).toBe(true);
    await expectCountedAgain(`slow (slowest ${slowest(slow)} ms; held ${slowest(held)} ms)`);
  });

  it("lets writes through while Redis refuses them, says so once, and counts again once it takes them", async () => {
    const admin = await createClient({ url: redis.url }).connect();
    const [failedBefore, countedBefore] = [failureLines(), countingLines()];
    // Redis refuses every write (NOREPLICAS) but still takes the scripts, as a replica would.
    await admin.sendCommand(["CONFIG", "SET", "min-replicas-to-write", "1"]);
    let writes: Write[];
    try {
      writes = await writeThroughout(WRITES);
      expect(writes.every((write) => !write.counted)).toBe(true);
      // Once at most: a failure said less than a minute before (a timeout on a busy machine) is not said again.
      expect(failureLines() - failedBefore).toBeLessThanOrEqual(1);
      expect(failureLines()).toBeGreaterThan(0);
      expect(countingLines()).toBe(countedBefore);
    } finally {
      await admin.sendCommand(["CONFIG", "SET", "min-replicas-to-write", "0"]);
      admin.destroy();
    }
    await expectCountedAgain(`refusing writes (${writes.length} writes)`);
  });

  it("recovers from a Redis restarted under writes that answers LOADING while it loads its data", async () => {
    const filler = await createClient({ url: redis.url }).connect();
    const fill = `for i = 1, ${DATASET_KEYS} do redis.call("SET", "k" .. i, i) end`;
    await filler.sendCommand(["EVAL", fill, "0"]);
    await filler.sendCommand(["SAVE"]);
    filler.destroy();
    const countedBefore = countingLines();

    const writes: Write[] = [];
    const restart = (async () => {
      await redis.stop();
      await redis.start({ keyLoadDelayUs: KEY_LOAD_DELAY_US });
      const loadingFrom = performance.now();
      // The server reconnects while Redis is still loading: its scripts are refused, so a write
      // goes through uncounted and the log does not say it counts.
      await expect
        .poll(() => writes.some((write) => write.startedAt > loadingFrom && !write.counted))
        .toBe(true);
      const counted = countingLines();
      expect(redis.isLoading()).toBe(true);
      expect(counted).toBe(countedBefore);
      await redis.loaded();
      return performance.now() - loadingFrom;
    })();
    await writeThroughout(restart, writes);
    const loadingMs = await restart;
    await expectCountedAgain(
      `loading ${Math.round(loadingMs)} ms under ${writes.length} writes (slowest ${slowest(writes)} ms)`,
    );
    expect(countingLines()).toBe(countedBefore + 1);
  });

  it("said each recovery once, and failures at most once a minute, not once a write", () => {
    figures.push(`  log: ${countingLines()} "counting in Redis", ${failureLines()} "Redis failed"`);
    // The start, then the five states, the slow one twice (past the deadline, then on reload).
    expect(countingLines()).toBeLessThanOrEqual(7);
    const minutes = Math.floor((performance.now() - startedAt) / 60_000);
    expect(failureLines()).toBeLessThanOrEqual(1 + minutes);
  });
});
