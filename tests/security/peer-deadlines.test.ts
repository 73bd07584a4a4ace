import type http from "node:http";
import { beforeAll, expect, it } from "vitest";
import { Browser } from "../support/oidc-browser";
import {
  signInScripted,
  startSuiteWithScriptedProvider,
  type TokenAnswer,
} from "../support/oidc-scripted-provider";
import { startRedis, type Redis } from "../support/redis";
import { expectCataloguePage } from "../support/reference-app";
import { startUpstream, type Upstream } from "../support/upstream";

// Each peer's deadline holds until its answer has been read whole, while the server collects its
// garbage every 100 ms: a deadline that only a weak reference kept would go with it,
// and the visitor would wait for ever (Node 20's AbortSignal.timeout once did: run on both Nodes).

const collectGarbage = new URL("../support/collect-garbage.js", import.meta.url).href;
const DEADLINE_MS = "1000";

let redis: Redis;
let collector: Upstream;
let exportsCut = 0;

// Headers, then a byte every 100 ms: never idle for long, never done.
function trickle(_req: http.IncomingMessage, res: http.ServerResponse) {
  res.writeHead(200, { "content-type": "application/json" }).write("{");
  const drip = setInterval(() => res.write(" "), 100);
  res.on("close", () => {
    clearInterval(drip);
    exportsCut++;
  });
}

beforeAll(async () => {
  [redis, collector] = await Promise.all([startRedis(), startUpstream()]);
  collector.handle(trickle);
  return async () => {
    redis.resume();
    await Promise.all([redis.stop(), collector.close()]);
  };
});

const suite = startSuiteWithScriptedProvider({
  referenceApp: true,
  env: () => ({
    NODE_OPTIONS: `--expose-gc --import ${collectGarbage}`,
    OIDC_TIMEOUT_MS: DEADLINE_MS,
    API_TIMEOUT_MS: DEADLINE_MS,
    SESSION_REDIS_URL: redis.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_TIMEOUT: DEADLINE_MS,
    OTEL_BSP_SCHEDULE_DELAY: "100",
  }),
  expectedStatuses: [503, 504],
});

const stallAfterHeaders = (_req: http.IncomingMessage, res: http.ServerResponse) =>
  void res.writeHead(200, { "content-type": "application/json" }).write("{");

it("the provider's discovery document, stalled after its first byte: 503, then sign-in once it answers", async () => {
  suite.provider.discovery = "stall";
  await expectCataloguePage(await fetch(`${suite.app.url}/auth/sign-in`), "SIGN_IN_UNAVAILABLE");
  suite.provider.discovery = "valid";
  const signInStarts = async () =>
    (await fetch(`${suite.app.url}/auth/sign-in`, { redirect: "manual" })).status;
  await expect.poll(signInStarts, { interval: 500 }).toBe(303);
});

it.each<TokenAnswer>(["hang", "stall"])("the provider's token answer (%s): 503", async (answer) => {
  suite.provider.answer = answer;
  await expectCataloguePage(await signInScripted(new Browser(), suite.app), "SIGN_IN_UNAVAILABLE");
});

it("the API's answer, stalled after its first byte: 504", async () => {
  suite.upstream.handle(stallAfterHeaders);
  await expectCataloguePage(await fetch(`${suite.app.url}/call/1`), "UPSTREAM_TIMEOUT");
});

it("the API's health path, never answering: /readyz 503", async () => {
  suite.upstream.handle(() => {});
  const readyz = await fetch(`${suite.app.url}/readyz`);
  expect(readyz.status).toBe(503);
  expect(await readyz.json()).toMatchObject({ code: "UPSTREAM_TIMEOUT" });
});

it("the session Redis, frozen with a visitor signed in: 503", async () => {
  suite.provider.answer = "valid";
  suite.provider.subject = { sub: "ada", name: "Ada", roles: ["editor"] };
  const browser = new Browser();
  expect((await signInScripted(browser, suite.app)).status).toBe(303);
  redis.pause();
  try {
    const guarded = await browser.fetch(`${suite.app.url}/things/1/feature`);
    await expectCataloguePage(guarded, "SIGN_IN_UNAVAILABLE");
  } finally {
    redis.resume();
  }
});

it("the collector's answer, trickling after its headers: the export is cut", async () => {
  await fetch(`${suite.app.url}/healthz`);
  await expect.poll(() => exportsCut).toBeGreaterThan(0);
});
