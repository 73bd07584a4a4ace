import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDelayingProxy, type DelayingProxy } from "../support/delaying-proxy";
import { startRedis, type Redis } from "../support/redis";
import {
  expectNoServerErrors,
  getLogLines,
  startServer,
  waitFor,
  type RunningServer,
} from "../support/server";

// With RATE_LIMIT_REDIS_URL, instances count the write limit together in Debian's redis-server
// on loopback; a Redis that goes away never costs a request.

const LIMIT = 4;

async function postTheme(server: RunningServer) {
  const started = performance.now();
  const response = await fetch(`${server.url}/preferences/theme`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "theme=dark&redirectTo=%2F",
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

/** `count` writes, one after the other, to the instances in turn. */
async function postInTurn(instances: RunningServer[], count: number) {
  const writes = [];
  for (let i = 0; i < count; i++) writes.push(await postTheme(instances[i % instances.length]!));
  return writes;
}

/** Stops the servers and what they use, checking first that they logged no error. */
async function stopChecked(servers: (RunningServer | undefined)[], ...others: (() => unknown)[]) {
  try {
    for (const server of servers) if (server) expectNoServerErrors(server, []);
  } finally {
    await Promise.all(servers.map((server) => server?.stop()));
    await Promise.all(others.map((stop) => stop()));
  }
}

const countWarnings = (server: RunningServer) =>
  getLogLines(server, "rate limit: Redis failed").length;

/** Until the instance says it counts in Redis: it connects in the background, after it listens. */
async function untilCountingInRedis(server: RunningServer, times = 1) {
  const count = () => getLogLines(server, "rate limit: counting in Redis").length;
  await waitFor(() => count() >= times, `"counting in Redis" ${times} time(s)`);
  expect(count()).toBe(times);
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe("two instances sharing one Redis", () => {
  let redis: Redis;
  let instances: RunningServer[];

  beforeAll(async () => {
    redis = await startRedis();
    instances = await Promise.all(
      [1, 2].map(() =>
        startServer({
          RATE_LIMIT_PER_MINUTE: String(LIMIT),
          RATE_LIMIT_REDIS_URL: redis.url,
          METRICS_PORT: "0",
        }),
      ),
    );
  });

  afterAll(() => stopChecked(instances ?? [], () => redis?.stop()));

  it("refuse together the write that crosses the shared limit, and not one before", async () => {
    for (const instance of instances) await untilCountingInRedis(instance);
    for (const instance of instances) expect(countWarnings(instance)).toBe(0);
    const writes = await postInTurn(instances, LIMIT + 2);
    // Counting apart, each would have let LIMIT through: 2 × LIMIT in all.
    expect(writes.map((write) => write.status)).toEqual([...Array(LIMIT).fill(303), 429, 429]);
  });

  it("answer every write while Redis is stopped, say so once each, count it, and share again when it is back", async () => {
    const upTimes = (await postInTurn(instances, 6)).map((write) => write.ms);

    // Four visitors keep writing through both instances while Redis is stopped under them, until
    // twenty more writes have been answered after it stopped.
    let stopped = false;
    let sinceStopped = 0;
    const duringStop: number[] = [];
    const visitors = Array.from({ length: 4 }, async (_, visitor) => {
      for (let i = visitor; !stopped || sinceStopped < 20; i++) {
        duringStop.push((await postTheme(instances[i % 2]!)).status);
        if (stopped) sinceStopped++;
      }
    });
    await expect.poll(() => duringStop.length).toBeGreaterThan(8);
    await redis.stop();
    stopped = true;
    await Promise.all(visitors);
    expect(duringStop.filter((status) => status !== 303 && status !== 429)).toEqual([]);

    const down = await postInTurn(instances, 20);
    expect(down.map((write) => write.status)).toEqual(Array(20).fill(303));
    console.log(
      `a write took ${median(upTimes).toFixed(1)} ms (median) with Redis up, ` +
        `${median(down.map((write) => write.ms)).toFixed(1)} ms with it stopped`,
    );
    for (const instance of instances) await expect.poll(() => countWarnings(instance)).toBe(1);
    for (const port of instances.map((instance) => instance.metricsPort!)) {
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const errors = Number(/^rate_limit_store_errors_total (\d+)/m.exec(metrics)?.[1]);
      expect(errors).toBeGreaterThan(0);
    }

    await redis.start();
    for (const instance of instances) await untilCountingInRedis(instance, 2);
    // Redis came back empty: the count starts again, shared again.
    const afterReturn = await postInTurn(instances, LIMIT + 1);
    expect(afterReturn.map((write) => write.status)).toEqual([...Array(LIMIT).fill(303), 429]);
  });
});

describe("an instance whose Redis stops answering", () => {
  let redis: Redis;
  let link: DelayingProxy;
  let server: RunningServer;

  beforeAll(async () => {
    redis = await startRedis();
    // A link that counts the connections the instance opens.
    link = await startDelayingProxy({ path: redis.socketPath });
    const url = `redis://127.0.0.1:${link.port}`;
    server = await startServer({ RATE_LIMIT_PER_MINUTE: "100", RATE_LIMIT_REDIS_URL: url });
    // Frozen before its scripts are loaded, the instance would have nothing to count with yet.
    await untilCountingInRedis(server);
  });

  afterAll(async () => {
    redis?.resume();
    await stopChecked(
      [server],
      () => link?.close(),
      () => redis?.stop(),
    );
  });

  it("holds one write until the command's timeout, then lets writes through at once", async () => {
    expect((await postTheme(server)).status).toBe(303);
    const opened = link.connections();
    redis.pause();
    const frozen = await postInTurn([server], 20);
    // The connection that timed out was replaced, once: the next writes found the new one not
    // ready and went through at once, rather than each waiting out the timeout on the old one.
    expect(link.connections() - opened).toBe(1);
    redis.resume();
    expect(frozen.map((write) => write.status)).toEqual(Array(20).fill(303));
    console.log(
      `writes with Redis frozen took ${frozen.map((write) => write.ms.toFixed(0)).join(", ")} ms`,
    );
    await untilCountingInRedis(server, 2);
  });
});

describe("an instance whose Redis is not there when it starts", () => {
  let redis: Redis;
  let server: RunningServer;

  beforeAll(async () => {
    redis = await startRedis();
    await redis.stop();
    server = await startServer({ RATE_LIMIT_PER_MINUTE: "1", RATE_LIMIT_REDIS_URL: redis.url });
  });

  afterAll(() => stopChecked([server], () => redis?.stop()));

  it("starts, is ready, lets writes through uncounted, and counts them once Redis comes", async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const writes = await postInTurn([server], 3);
    expect(writes.map((write) => write.status)).toEqual([303, 303, 303]);
    await expect.poll(() => countWarnings(server)).toBe(1);
    await redis.start();
    await untilCountingInRedis(server);
    expect([(await postTheme(server)).status, (await postTheme(server)).status]).toEqual([
      303, 429,
    ]);
  });
});
