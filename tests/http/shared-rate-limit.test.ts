import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { errorCatalogue } from "~/lib/errors";
import { getHeading } from "../support/html";
import { getMetricsUrl, scrape, sumOf } from "../support/metrics";
import { startRedis, type RedisServer } from "../support/redis";
import { startSuiteServer, type RunningServer } from "../support/server";

// Two instances counting the write limit in one Redis (Debian's redis-server on loopback). Each
// case posts from its own client addresses (X-Forwarded-For, behind a trusted proxy), so counts
// left by one case never limit the next.

const LIMIT = 5;
const WARNING = "rate limit: Redis unavailable";

let nextAddress = 1;
/** A client address no request has come from yet. */
const newAddress = () => `10.0.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

type Answer = { status: number | string; ms: number; counted: boolean; html: string };

async function post(server: RunningServer, address: string): Promise<Answer> {
  const start = performance.now();
  try {
    const response = await fetch(`${server.url}/preferences/theme`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
      body: "theme=dark&redirectTo=/",
    });
    const html = await response.text();
    // The limiter sets its headers only on a write it counted.
    const counted = response.headers.has("ratelimit");
    return { status: response.status, ms: performance.now() - start, counted, html };
  } catch (error) {
    return { status: (error as Error).message, ms: performance.now() - start, counted: false, html: "" };
  }
}

const countLines = (server: RunningServer, text: string) =>
  server
    .stdout()
    .split("\n")
    .filter((line) => line.includes(text)).length;

async function waitForLines(server: RunningServer, text: string, count: number) {
  const deadline = Date.now() + 10_000;
  while (countLines(server, text) < count) {
    if (Date.now() > deadline) throw new Error(`no "${text}" line in 10 s:\n${server.output()}`);
    await sleep(20);
  }
}

/** Polls with writes from new addresses until one is counted; resolves with the time it took. */
async function waitUntilCounted(server: RunningServer) {
  const start = performance.now();
  while (!(await post(server, newAddress())).counted) {
    if (performance.now() - start > 15_000) throw new Error("writes not counted again within 15 s");
    await sleep(100);
  }
  return Math.round(performance.now() - start);
}

const describeMs = (answers: Answer[]) => {
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
  const at = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(1);
  return `${answers.length} writes, median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`;
};

async function readStoreErrors(server: RunningServer) {
  return sumOf(await scrape(await getMetricsUrl(server)), "rate_limit_store_errors_total");
}

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
  return () => redis.stop();
});

const sharedLimitEnv = () => ({
  RATE_LIMIT_REDIS_URL: redis.url,
  RATE_LIMIT_PER_MINUTE: String(LIMIT),
  TRUST_PROXY: "true",
  METRICS_PORT: "0",
});

describe("two instances sharing one Redis", () => {
  const first = startSuiteServer(sharedLimitEnv);
  const second = startSuiteServer(sharedLimitEnv);
  const both = () => [first, second];

  beforeAll(() => Promise.all(both().map((server) => waitForLines(server, "counting writes in Redis", 1))));

  it("refuse the write that crosses the shared limit, and not before", async () => {
    const address = newAddress();
    const answers: Answer[] = [];
    for (let i = 0; i < LIMIT; i++) answers.push(await post(both()[i % 2]!, address));
    expect(answers.map((a) => a.status)).toEqual(Array(LIMIT).fill(303));
    for (const server of both()) {
      const refused = await post(server, address);
      expect(refused.status).toBe(429);
      expect(getHeading(refused.html)).toBe(errorCatalogue.RATE_LIMITED.title);
    }
    // Another address has its own count.
    expect((await post(first, newAddress())).status).toBe(303);
  });

  it("answer every write while Redis is stopped, warn once each, count the errors, and count again once it is back", async () => {
    const phase = { now: "up" as "up" | "down" };
    const answers: Record<"up" | "down", Answer[]> = { up: [], down: [] };
    let stopLoad = false;
    const client = async (index: number) => {
      for (let i = index; !stopLoad; i++) {
        const during = phase.now;
        answers[during].push(await post(both()[i % 2]!, newAddress()));
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(client));
    await sleep(1_000);
    await redis.stop();
    phase.now = "down";
    await sleep(1_500);
    stopLoad = true;
    await load;

    console.log(`Redis up: ${describeMs(answers.up)}; stopped: ${describeMs(answers.down)}`);
    const statuses = [...answers.up, ...answers.down].map((a) => a.status);
    expect(new Set(statuses)).toEqual(new Set([303]));
    expect(answers.down.length).toBeGreaterThan(10);
    expect(answers.down.filter((a) => a.counted)).toEqual([]);
    for (const server of both()) {
      expect(countLines(server, WARNING)).toBe(1);
      expect(await readStoreErrors(server)).toBeGreaterThan(0);
    }
    console.log(`store errors counted: ${await readStoreErrors(first)} + ${await readStoreErrors(second)}`);

    await redis.start();
    const resumedMs = await Promise.all(both().map(waitUntilCounted));
    console.log(`counting again ${resumedMs.join(" and ")} ms after Redis started again`);
    const address = newAddress();
    const again = [];
    for (let i = 0; i <= LIMIT; i++) again.push((await post(both()[i % 2]!, address)).status);
    expect(again).toEqual([...Array(LIMIT).fill(303), 429]);
    for (const server of both()) expect(countLines(server, WARNING)).toBe(1);
  });

  it("keep a write's wait on a Redis that stopped answering to the command's bound", async () => {
    redis.pause();
    const answers: Answer[] = [];
    try {
      for (let i = 0; i < 10; i++) answers.push(await post(both()[i % 2]!, newAddress()));
    } finally {
      redis.resume();
    }
    console.log(
      `Redis frozen: ${describeMs(answers)} (${answers.map((a) => a.ms.toFixed(0)).join(", ")} ms)`,
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(303));
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(2_000);
    const resumedMs = await Promise.all(both().map(waitUntilCounted));
    console.log(`counting again ${resumedMs.join(" and ")} ms after Redis answered again`);
  });
});

describe("an instance whose Redis is down when it starts", () => {
  let late: RedisServer;
  beforeAll(async () => {
    late = await startRedis();
    await late.stop();
    return () => late.stop();
  });
  const server = startSuiteServer(() => ({ ...sharedLimitEnv(), RATE_LIMIT_REDIS_URL: late.url }));

  it("starts and serves writes uncounted, then counts them once Redis comes", async () => {
    const answer = await post(server, newAddress());
    expect(answer).toMatchObject({ status: 303, counted: false });
    // Readiness is about the API, not the limit's store.
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    await waitForLines(server, WARNING, 1);
    await late.start();
    const resumedMs = await waitUntilCounted(server);
    console.log(
      `down at start: first write ${answer.ms.toFixed(1)} ms; counted ${resumedMs} ms after Redis started`,
    );
    expect(countLines(server, WARNING)).toBe(1);
  });
});
