import { mkdtempSync, rmSync } from "node:fs";
import type http from "node:http";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMemoryBackend,
  createRedisBackend,
  createSessionId,
  MAX_MEMORY_SESSIONS,
  MAX_SESSIONS_PER_ACCOUNT,
  type Session,
} from "~/auth/session-store.server";
import { createThrottledWarning } from "~/lib/logger.server";
import { connectRedis } from "~/lib/redis.server";
import { parseHtml } from "../support/html";
import { startDelayingProxy, type DelayingProxy } from "../support/delaying-proxy";
import { startNginx, type LoadBalancer } from "../support/nginx";
import { Browser, signInThroughProvider } from "../support/oidc-browser";
import { answerThingsApi, countRefreshes, THING } from "../support/oidc-app";
import { startOpenIdProvider, signInEnv, type OpenIdProvider } from "../support/oidc-provider";
import { signInScripted, startSuiteWithScriptedProvider } from "../support/oidc-scripted-provider";
import { startRedis, type Redis } from "../support/redis";
import { buildReferenceApp, expectCataloguePage } from "../support/reference-app";
import {
  expectNoServerErrors,
  getLoggedStatuses,
  HANG_TIMEOUT_MS,
  reservePort,
  startServer,
  type RunningServer,
} from "../support/server";
import { startUpstream, type Upstream } from "../support/upstream";

const answerThing = (_req: http.IncomingMessage, res: http.ServerResponse) =>
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(THING));

/** The session id a browser's cookie holds, signed: base64 of its JSON, a dot, the signature. */
function getSessionId(browser: Browser, url: string) {
  const cookie = decodeURIComponent(browser.jar(url).get("session")!);
  return JSON.parse(Buffer.from(cookie.split(".")[0]!, "base64").toString()) as string;
}

const createAdminClient = (url: string) => createClient({ url });
type AdminClient = ReturnType<typeof createAdminClient>;

async function withRedisClient<T>(url: string, task: (client: AdminClient) => Promise<T>) {
  const client = createAdminClient(url);
  await client.connect();
  try {
    return await task(client);
  } finally {
    client.destroy();
  }
}

async function visitorName(browser: Browser, url: string) {
  const page = await browser.fetch(url);
  expect(page.status).toBe(200);
  const header = parseHtml(await page.text()).querySelector("header .visitor");
  return header?.tagName === "FORM" ? header.querySelector("span")?.textContent : null;
}

describe("sessions in Redis, shared by two instances behind a load balancer", () => {
  let redis: Redis;
  let provider: OpenIdProvider;
  let upstream: Upstream;
  let balancer: LoadBalancer;
  let instances: RunningServer[] = [];
  let guarded: string;
  let edit: string;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "session-redis-"));

  beforeAll(async () => {
    const [listener, cwd] = await Promise.all([reservePort(), buildReferenceApp()]);
    const origin = listener.url;
    [redis, upstream, provider] = await Promise.all([
      startRedis({ dir: dataDir }),
      startUpstream(),
      startOpenIdProvider({ appOrigins: [origin] }),
    ]);
    upstream.handle(answerThing);
    const env = {
      ...signInEnv(provider, origin),
      SESSION_REDIS_URL: redis.url,
      API_BASE_URL: upstream.url,
    };
    instances = await Promise.all([1, 2].map(() => startServer(env, { cwd })));
    const ports = instances.map((instance) => instance.port);
    balancer = await startNginx(ports, listener);
    guarded = `${balancer.url}/things/1/feature`;
    edit = `${balancer.url}/things/1/edit`;
  }, HANG_TIMEOUT_MS);

  afterAll(async () => {
    redis?.resume();
    try {
      for (const instance of instances) expectNoServerErrors(instance, [503]);
    } finally {
      await Promise.all([...instances.map((instance) => instance.stop()), balancer?.stop()]);
      await Promise.all([redis?.stop(), provider?.close(), upstream?.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("keeps a visitor signed in whichever instance answers, with only an id in the cookie", async () => {
    const browser = new Browser();
    await signInThroughProvider(browser, balancer.url, "ada");
    expect(browser.jar(balancer.url).get("session")).toMatch(/^[\w%]+\.[\w%]+$/);
    const before = instances.map((instance) => getLoggedStatuses(instance).length);
    for (let i = 0; i < 4; i++) expect(await visitorName(browser, guarded)).toBe("Ada Lovelace");
    const startedAt = performance.now();
    for (let i = 0; i < 100; i++) await (await browser.fetch(edit)).arrayBuffer();
    console.log(
      `signed-in page through nginx, sessions in Redis: ${((performance.now() - startedAt) / 100).toFixed(2)} ms each`,
    );
    const after = instances.map((instance) => getLoggedStatuses(instance).length);
    expect(after[0]).toBeGreaterThan(before[0]!);
    expect(after[1]).toBeGreaterThan(before[1]!);
  });

  it("ends the previous session at a new sign-in, and at sign-out, on every instance", async () => {
    const browser = new Browser();
    await signInThroughProvider(browser, balancer.url, "ada");
    const first = browser.jar(balancer.url).get("session")!;
    browser.forget(provider.issuer);
    await signInThroughProvider(browser, balancer.url, "bob");
    const stale = new Browser();
    stale.jar(balancer.url).set("session", first);
    for (let i = 0; i < 2; i++) expect(await visitorName(stale, edit)).toBeNull();

    const second = browser.jar(balancer.url).get("session")!;
    expect((await browser.post(`${balancer.url}/auth/sign-out`)).status).toBe(303);
    const kept = new Browser();
    kept.jar(balancer.url).set("session", second);
    for (let i = 0; i < 2; i++) expect(await visitorName(kept, edit)).toBeNull();
  });

  it.each([
    ["not JSON", () => "{not json"],
    [
      "of another shape",
      (stored: string) => JSON.stringify({ ...JSON.parse(stored), roles: "editor,admin" }),
    ],
  ])("signs out a visitor whose session in Redis is %s, without a 500", async (_case, rewrite) => {
    const browser = new Browser();
    await signInThroughProvider(browser, balancer.url, "ada", "/things/1");
    const key = `session:${getSessionId(browser, balancer.url)}`;
    await withRedisClient(redis.url, async (admin) =>
      admin.set(key, rewrite((await admin.get(key))!)),
    );
    for (let i = 0; i < 2; i++) expect(await visitorName(browser, edit)).toBeNull();
    expect((await browser.fetch(guarded)).status).toBe(303);
  });

  it("answers 503, never 500, while Redis is frozen or down, and pages that only vary render signed out", async () => {
    const browser = new Browser();
    await signInThroughProvider(browser, balancer.url, "ada", "/things/1");
    redis.pause();
    try {
      const startedAt = performance.now();
      await expectCataloguePage(await browser.fetch(guarded), "SIGN_IN_UNAVAILABLE");
      console.log(
        `guarded page with Redis frozen: 503 after ${Math.round(performance.now() - startedAt)} ms`,
      );
      expect(await visitorName(browser, edit)).toBeNull();
    } finally {
      redis.resume();
    }
    await redis.stop();
    await expectCataloguePage(await browser.fetch(guarded), "SIGN_IN_UNAVAILABLE");
    expect(await visitorName(browser, edit)).toBeNull();
    const callback = await signInThroughProvider(new Browser(), balancer.url, "ada");
    await expectCataloguePage(callback, "SIGN_IN_UNAVAILABLE");
  });

  it("signs visitors in again once Redis is back", async () => {
    await redis.start();
    const browser = new Browser();
    // Until it signs in: the test's timeout catches a hang.
    while ((await signInThroughProvider(browser, balancer.url, "ada")).status !== 303) {
      browser.forget(provider.issuer);
      await sleep(200);
    }
    for (let i = 0; i < 2; i++) expect(await visitorName(browser, guarded)).toBe("Ada Lovelace");
  });

  it("answers 503 while a restarted Redis loads its data, then keeps the visitor signed in", async () => {
    const browser = new Browser();
    await signInThroughProvider(browser, balancer.url, "ada");
    expect(await visitorName(browser, guarded)).toBe("Ada Lovelace");
    await withRedisClient(redis.url, async (admin) => {
      await admin.sendCommand([
        "EVAL",
        'for i = 1, 20000 do redis.call("SET", "k" .. i, i) end',
        "0",
      ]);
      await admin.sendCommand(["SAVE"]);
    });

    await redis.stop();
    // At least five seconds of loading: the page asked at once finds Redis still loading.
    await redis.start({ keyLoadDelayUs: 250 });
    await expectCataloguePage(await browser.fetch(guarded), "SIGN_IN_UNAVAILABLE");
    await redis.loaded();
    const readyAt = performance.now();
    let page = await browser.fetch(guarded);
    while (page.status !== 200) {
      await expectCataloguePage(page, "SIGN_IN_UNAVAILABLE");
      await sleep(100);
      page = await browser.fetch(guarded);
    }
    console.log(
      `sessions answered again ${Math.round(performance.now() - readyAt)} ms after Redis loaded`,
    );
    const name = parseHtml(await page.text()).querySelector("header .visitor span")?.textContent;
    expect(name).toBe("Ada Lovelace");
  });
});

describe("a freshly started instance with sessions in Redis", () => {
  let redis: Redis;
  let proxy: DelayingProxy | undefined;
  let provider: OpenIdProvider | undefined;
  let fresh: RunningServer | undefined;

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    try {
      if (fresh) expectNoServerErrors(fresh, [503]);
    } finally {
      await fresh?.stop();
      await Promise.all([proxy?.close(), redis?.stop(), provider?.close()]);
    }
  });

  it("is not ready until Redis is connected, and serves its first signed-in visitor meanwhile", async () => {
    const [listener, freshListener] = await Promise.all([reservePort(), reservePort()]);
    provider = await startOpenIdProvider({ appOrigins: [listener.url] });
    // The visitor signs in on an instance that then stops; a fresh one takes its place.
    const first = await startServer(
      { ...signInEnv(provider, listener.url), SESSION_REDIS_URL: redis.url },
      { listener },
    );
    const browser = new Browser();
    expect((await signInThroughProvider(browser, listener.url, "ada")).status).toBe(303);
    await first.stop();

    proxy = await startDelayingProxy({ path: redis.socketPath });
    proxy.hold();
    const origin = freshListener.url;
    fresh = await startServer(
      { ...signInEnv(provider, origin), SESSION_REDIS_URL: `redis://127.0.0.1:${proxy.port}` },
      { listener: freshListener },
    );
    // A browser sends a host's cookies whatever its port: the fresh instance has another one.
    browser.jar(origin).set("session", browser.jar(listener.url).get("session")!);
    const notReady = await fetch(`${origin}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      status: "unavailable",
      sessions: "connecting to Redis",
      code: "SIGN_IN_UNAVAILABLE",
    });
    await proxy.connected();

    // The first signed-in page waits for the connection, within its deadline, instead of failing.
    const firstPage = visitorName(browser, `${origin}/`);
    await sleep(300);
    proxy.release();
    expect(await firstPage).toBe("Ada Lovelace");
    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: "ok",
      sessions: "ok",
      upstream: "not configured",
    });

    // Redis lost after that: signed-in pages answer 503 as documented, the instance stays ready.
    await redis.stop();
    expect((await fetch(`${origin}/readyz`)).status).toBe(200);
    expect(await visitorName(browser, `${origin}/`)).toBeNull();
  });
});

// In memory, as many sign-ins as pushed everyone out before; in Redis, which pushes no one out,
// enough to pass the bound.
describe.each([
  [
    "in memory",
    MAX_MEMORY_SESSIONS + 50,
    async () => ({ backend: createMemoryBackend(), close: async () => {} }),
  ],
  [
    "in Redis",
    MAX_SESSIONS_PER_ACCOUNT * 2,
    async () => {
      const redis = await startRedis();
      const warn = createThrottledWarning("sessions");
      const connection = await connectRedis(redis.url, {
        timeoutMs: 5_000,
        waitForConnection: true,
        warn,
      });
      return {
        backend: createRedisBackend(connection),
        close: () => (connection.close(), redis.stop()),
      };
    },
  ],
])("sessions %s", (_where, signIns, open) => {
  const signIn = (sub: string, at: number): Session => ({
    id: createSessionId(),
    sub,
    name: sub,
    roles: [],
    accessToken: "token",
    refreshToken: null,
    idToken: null,
    tokenIssuedAt: at,
    tokenExpiresAt: at + 300_000,
    createdAt: at,
    seenAt: at,
  });

  it("keep MAX_SESSIONS_PER_ACCOUNT per account: one account signing in again and again ends its own oldest, no one else's", async () => {
    const { backend, close } = await open();
    try {
      const now = Date.now();
      const others = ["ada", "bob"].map((sub) => signIn(sub, now));
      for (const session of others) await backend.set(session, 600);
      const repeated = Array.from({ length: signIns }, (_, i) => signIn("mallory", now + i + 1));
      for (const session of repeated) await backend.set(session, 600);
      // Saved again, as each page's touch does.
      await backend.set(repeated.at(-1)!, 600);
      for (const session of others) expect(await backend.get(session.id)).not.toBeNull();
      const kept: boolean[] = [];
      for (const session of repeated) kept.push((await backend.get(session.id)) !== null);
      expect(kept.filter(Boolean)).toHaveLength(MAX_SESSIONS_PER_ACCOUNT);
      expect(kept.slice(-MAX_SESSIONS_PER_ACCOUNT).every(Boolean)).toBe(true);
    } finally {
      await close();
    }
  });

  it("count only live sessions, and never write an ended one again", async () => {
    const { backend, close } = await open();
    try {
      const now = Date.now();
      const kept = signIn("ada", now);
      await backend.set(kept, 600);
      const expiring = signIn("ada", now + 1);
      await backend.set(expiring, 1);
      await expect.poll(() => backend.get(expiring.id)).toBeNull();
      for (let i = 2; i < MAX_SESSIONS_PER_ACCOUNT + 2; i++) {
        const ended = signIn("ada", now + i);
        await backend.set(ended, 600);
        await backend.delete(ended);
        // A touch or a refresh that read it before it ended.
        const late = { ...ended, seenAt: Date.now() };
        expect(await backend.set(late, 600, ended.tokenIssuedAt)).toBe(false);
        expect(await backend.get(ended.id)).toBeNull();
      }
      for (let i = 1; i < MAX_SESSIONS_PER_ACCOUNT; i++)
        await backend.set(signIn("ada", now + 100 + i), 600);
      expect(await backend.get(kept.id)).not.toBeNull();
    } finally {
      await close();
    }
  });
});

describe("a token refresh whose lock an instance that died still holds", () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    return () => redis.stop();
  });
  const suite = startSuiteWithScriptedProvider({
    referenceApp: true,
    env: () => ({ SESSION_REDIS_URL: redis.url, OIDC_TIMEOUT_MS: "1000" }),
  });

  it("is made here once the lock runs out, the visitor still signed in", async () => {
    suite.upstream.handle(answerThingsApi(() => true));
    Object.assign(suite.provider, {
      subject: { sub: "ada", name: "Ada", roles: ["editor"] },
      expiresIn: 1,
    });
    const browser = new Browser();
    expect((await signInScripted(browser, suite.app)).status).toBe(303);
    // What an instance that took the lock and died leaves behind, for the lock's time (twice OIDC_TIMEOUT_MS).
    const lock = `lock:refresh:${getSessionId(browser, suite.app.url)}`;
    await withRedisClient(redis.url, (admin) =>
      admin.set(lock, "a dead instance's", { PX: 2_000 }),
    );
    const refreshes = countRefreshes(suite.provider);
    // The access token has expired; the refresh token is good.
    await sleep(1_000);
    expect(await visitorName(browser, `${suite.app.url}/things/1/feature`)).toBe("Ada");
    expect(countRefreshes(suite.provider)).toBe(refreshes + 1);
  });
});

// Every writer of a session writes only over the version it read, on one instance and across two.
describe.each([
  ["in memory", false],
  ["in Redis", true],
])("sessions %s, signed out on one instance or another", (_where, inRedis) => {
  let redis: Redis | undefined;
  const instances: RunningServer[] = [];
  beforeAll(async () => {
    if (inRedis) redis = await startRedis();
  });
  const suite = startSuiteWithScriptedProvider({
    env: (): Record<string, string> => (redis ? { SESSION_REDIS_URL: redis.url } : {}),
  });
  beforeAll(async () => {
    instances.push(suite.app);
    if (!redis) return;
    const listener = await reservePort();
    const { issuer, clientId } = suite.provider;
    const env = { ORIGIN: listener.url, OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId };
    instances.push(await startServer({ ...env, SESSION_REDIS_URL: redis.url }, { listener }));
  }, HANG_TIMEOUT_MS);
  afterAll(async () => {
    try {
      for (const instance of instances.slice(1)) expectNoServerErrors(instance);
    } finally {
      await Promise.all(instances.slice(1).map((instance) => instance.stop()));
      await redis?.stop();
    }
  });
  // A browser sends a host's cookies whatever its port: each instance here has its own.
  const carryCookie = (browser: Browser, to: RunningServer) =>
    browser.jar(to.url).set("session", browser.jar(suite.app.url).get("session")!);

  it.each(inRedis ? [0, 1] : [0])(
    "end, signed out on instance %i while a token refresh is in flight, every copy of the cookie",
    async (index) => {
      // Every token is due at once: each page refreshes it.
      Object.assign(suite.provider, { expiresIn: 0 });
      const browser = new Browser();
      expect((await signInScripted(browser, suite.app)).status).toBe(303);
      const copy = new Browser();
      copy.jar(suite.app.url).set("session", browser.jar(suite.app.url).get("session")!);
      let release = () => {};
      suite.provider.hold = new Promise<void>((resolve) => (release = resolve));
      const refreshes = countRefreshes(suite.provider);
      const page = browser.fetch(`${suite.app.url}/`);
      await expect.poll(() => countRefreshes(suite.provider)).toBe(refreshes + 1);
      const other = instances[index]!;
      carryCookie(browser, other);
      expect((await browser.post(`${other.url}/auth/sign-out`)).status).toBe(303);
      release();
      expect((await page).status).toBe(200);
      expect(await visitorName(copy, `${suite.app.url}/`)).toBeNull();
    },
  );

  it("free an account's place at each sign-out: one browser stays signed in while another signs in and out again and again", async () => {
    Object.assign(suite.provider, { expiresIn: 300, hold: Promise.resolve() });
    const kept = new Browser();
    expect((await signInScripted(kept, suite.app)).status).toBe(303);
    const other = instances.at(-1)!;
    for (let i = 0; i < MAX_SESSIONS_PER_ACCOUNT + 2; i++) {
      const browser = new Browser();
      expect((await signInScripted(browser, other)).status).toBe(303);
      expect((await browser.post(`${other.url}/auth/sign-out`)).status).toBe(303);
    }
    expect(await visitorName(kept, `${suite.app.url}/`)).toBe("Mallory");
  });
});
