import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHtml } from "../support/html";
import { answerThingsApi, countRefreshes } from "../support/oidc-app";
import { Browser } from "../support/oidc-browser";
import {
  HUGE_ANSWER_BYTES,
  signInScripted as signIn,
  startSuiteWithScriptedProvider,
  type DiscoveryAnswer,
  type ScriptedSuite,
  type TokenAnswer,
} from "../support/oidc-scripted-provider";
import { readRssMegabytes } from "../support/process-stats";
import { heldInJsonParses, LOOP_DELAY_OPTIONS, readLoopDelay } from "../support/request-cost";
import { expectCataloguePage } from "../support/reference-app";
import {
  expectNoServerErrors,
  getLogLines,
  reservePort,
  startServer,
  type RunningServer,
} from "../support/server";
import { getClosedPort } from "../support/upstream";

const WARN = '"level":40';

// Bounds far from both what a capped answer costs and what an uncapped one cost (docs/security.md).
const MAX_GROWTH_MB = 96;
// The longest stretch of the loop, in parses of 1 MiB of JSON: 2.0 to 4.6 with the answers capped
// (7.9 under a full `npm test`), 45 (discovery) to 193 (token) with them read whole.
const MAX_HELD_PARSES = 20;
// Of each 128 MB answer, what the app may have taken in (socket buffers included) before it stopped.
const MAX_BYTES_TAKEN = 32 * 1024 * 1024;

/**
 * Sends four requests at once that each meet a huge answer from the provider: each is answered
 * with the 503 page, and the server's resident memory (sampled, the peak kept), its loop and what
 * it took of each answer stay within their bounds. Resolves with how many answers it met.
 */
async function expectHugeAnswersRefused(
  suite: ScriptedSuite,
  name: string,
  send: () => Promise<Response>,
) {
  const pid = suite.app.child.pid!;
  const taken = suite.provider.hugeBytesTaken.length;
  await readLoopDelay(suite.app);
  const idle = readRssMegabytes(pid);
  let peak = idle;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, readRssMegabytes(pid));
      await sleep(10);
    }
  })();
  const answers = await Promise.all(Array.from({ length: 4 }, send));
  sampling = false;
  await sampler;
  peak = Math.max(peak, readRssMegabytes(pid));
  const loop = await readLoopDelay(suite.app);
  const bytesTaken = suite.provider.hugeBytesTaken.slice(taken);
  const mb = (value: number) => `${Math.round(value)} MB`;
  console.log(
    `${name}: 4 at once, ${bytesTaken.length} answers of ${mb(HUGE_ANSWER_BYTES / 2 ** 20)} each; ` +
      `RSS idle ${mb(idle)}, peak ${mb(peak)} (+${mb(peak - idle)}); loop held ${loop.heldCpuMs} ms of CPU ` +
      `at most, ${heldInJsonParses(loop).toFixed(1)} parses of 1 MiB of JSON (delay ${loop.maxMs} ms); ` +
      `the app took at most ${mb(Math.max(...bytesTaken) / 2 ** 20)} of an answer`,
  );
  for (const answer of answers) await expectCataloguePage(answer, "SIGN_IN_UNAVAILABLE");
  for (const taken of bytesTaken) expect(taken).toBeLessThan(MAX_BYTES_TAKEN);
  expect(peak - idle).toBeLessThan(MAX_GROWTH_MB);
  expect(heldInJsonParses(loop)).toBeLessThanOrEqual(MAX_HELD_PARSES);
  return bytesTaken.length;
}

describe("a hostile or failing provider never signs anyone in and never answers 500", () => {
  const suite = startSuiteWithScriptedProvider({
    env: { OIDC_TIMEOUT_MS: "1000" },
    expectedStatuses: [502, 503],
  });

  it("signs in when the ID token is valid (the control case)", async () => {
    suite.provider.answer = "valid";
    const browser = new Browser();
    const answer = await signIn(browser, suite.app);
    expect(answer.status).toBe(303);
    expect(browser.jar(suite.app.url).get("session")).toBeDefined();
  });

  it.each<[TokenAnswer, "SIGN_IN_FAILED" | "SIGN_IN_UNAVAILABLE"]>([
    ["bad-signature", "SIGN_IN_FAILED"],
    ["wrong-issuer", "SIGN_IN_FAILED"],
    ["wrong-audience", "SIGN_IN_FAILED"],
    ["expired", "SIGN_IN_FAILED"],
    ["wrong-nonce", "SIGN_IN_FAILED"],
    ["error-500", "SIGN_IN_FAILED"],
    ["garbage", "SIGN_IN_FAILED"],
    ["hang", "SIGN_IN_UNAVAILABLE"],
  ])("a token endpoint answering %s is %s, with no session", async (answer, code) => {
    suite.provider.answer = answer;
    const browser = new Browser();
    const callback = await signIn(browser, suite.app);
    await expectCataloguePage(callback, code);
    expect(callback.headers.getSetCookie().some((c) => c.startsWith("session="))).toBe(false);
    expect(browser.jar(suite.app.url).get("session")).toBeUndefined();
  });
});

describe.each<DiscoveryAnswer>(["huge-declared", "huge"])(
  "a discovery document of 128 MB (%s)",
  (discovery) => {
    const suite = startSuiteWithScriptedProvider({
      env: { NODE_OPTIONS: LOOP_DELAY_OPTIONS },
      expectedStatuses: [503],
    });

    it("makes sign-in unavailable at once, the memory and the event loop untouched", async () => {
      suite.provider.discovery = discovery;
      const met = await expectHugeAnswersRefused(suite, `discovery, ${discovery}`, () =>
        fetch(`${suite.app.url}/auth/sign-in?redirectTo=/`),
      );
      expect(met).toBeGreaterThan(0);
      await expect
        .poll(() => getLogLines(suite.app, WARN, "provider cannot be reached").length)
        .toBe(1);
    });
  },
);

describe("a token answer of 128 MB", () => {
  const suite = startSuiteWithScriptedProvider({
    env: { NODE_OPTIONS: LOOP_DELAY_OPTIONS },
    expectedStatuses: [503],
  });

  it("makes sign-in unavailable at once, the memory and the event loop untouched", async () => {
    suite.provider.answer = "valid";
    await signIn(new Browser(), suite.app);
    suite.provider.answer = "huge";
    expect(
      await expectHugeAnswersRefused(suite, "token endpoint", () =>
        signIn(new Browser(), suite.app),
      ),
    ).toBe(4);
  });
});

describe("tokens that could not be sent in a header", () => {
  const suite = startSuiteWithScriptedProvider({ expectedStatuses: [502] });

  it.each([
    ["an access token with CR LF", { accessToken: "token\r\nX-Injected: 1" }],
    ["an access token with a control character", { accessToken: "token\u0000" }],
    ["an access token that is not ASCII", { accessToken: "tökén" }],
    ["a token type with CR LF", { tokenType: "Bearer\r\nX-Injected: 1" }],
  ])("refuse %s at sign-in, with a warning", async (_name, tokens) => {
    Object.assign(suite.provider, {
      accessToken: "an-access-token",
      tokenType: "Bearer",
      ...tokens,
    });
    const warnings = getLogLines(suite.app, WARN, "sign-in:").length;
    const browser = new Browser();
    await expectCataloguePage(await signIn(browser, suite.app), "SIGN_IN_FAILED");
    expect(browser.jar(suite.app.url).get("session")).toBeUndefined();
    await expect
      .poll(() => getLogLines(suite.app, WARN, "sign-in:").length)
      .toBeGreaterThan(warnings);
  });
});

describe("token refreshes", () => {
  const suite = startSuiteWithScriptedProvider({
    referenceApp: true,
    env: { OIDC_TIMEOUT_MS: "1000" },
    expectedStatuses: [502, 503],
  });
  const feature = () => `${suite.app.url}/things/1/feature`;
  const postFeature = (browser: Browser) => browser.post(feature());
  const refreshCount = () => countRefreshes(suite.provider);

  // Who the guarded page shows, or null when it sends the visitor to sign in.
  const getGuardedVisitor = async (browser: Browser) => {
    const page = await browser.fetch(feature());
    if (page.status === 303) return null;
    expect(page.status).toBe(200);
    return parseHtml(await page.text()).querySelector("header form.visitor span")?.textContent;
  };

  const signInAs = async (sub: string, name: string, expiresIn = 300) => {
    Object.assign(suite.provider, {
      answer: "valid",
      subject: { sub, name, roles: ["editor"] },
      accessToken: `${sub}-first-token`,
      tokenType: "Bearer",
      expiresIn,
    });
    const browser = new Browser();
    expect((await signIn(browser, suite.app)).status).toBe(303);
    expect(await getGuardedVisitor(browser)).toBe(name);
    return browser;
  };

  it("end the session when the refreshed ID token names someone else (an API's 401)", async () => {
    suite.upstream.handle(answerThingsApi(() => false));
    const browser = await signInAs("alice", "Alice");
    const copy = browser.jar(suite.app.url).get("session")!;
    suite.provider.subject = { sub: "eve", name: "Eve", roles: ["editor", "admin"] };
    const refreshes = refreshCount();
    await expectCataloguePage(await postFeature(browser), "SIGN_IN_REQUIRED");
    expect(refreshCount()).toBe(refreshes + 1);
    expect(await getGuardedVisitor(browser)).toBeNull();
    const replayed = new Browser();
    replayed.jar(suite.app.url).set("session", copy);
    expect(await getGuardedVisitor(replayed)).toBeNull();
    await expect.poll(() => getLogLines(suite.app, WARN, "names another subject").length).toBe(1);
  });

  it("end the session when the refreshed ID token names someone else (a token due)", async () => {
    suite.upstream.handle(answerThingsApi(() => true));
    const browser = await signInAs("bob", "Bob", 1);
    suite.provider.subject = { sub: "eve", name: "Eve", roles: ["editor", "admin"] };
    // Due once less than a quarter of its second remains; waiting longer only makes it more so.
    await sleep(1_000);
    const page = await browser.fetch(feature());
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/auth/sign-in?redirectTo=%2Fthings%2F1%2Ffeature");
    expect(await getGuardedVisitor(browser)).toBeNull();
    await expect.poll(() => getLogLines(suite.app, WARN, "names another subject").length).toBe(2);
  });

  it("end the session when a refreshed access token could not be sent in a header", async () => {
    const sent: (string | undefined)[] = [];
    suite.upstream.handle(answerThingsApi((authorization) => (sent.push(authorization), false)));
    const browser = await signInAs("carol", "Carol");
    suite.provider.accessToken = "token\r\nX-Injected: 1";
    await expectCataloguePage(await postFeature(browser), "SIGN_IN_REQUIRED");
    expect(sent).toEqual(["Bearer carol-first-token"]);
    expect(await getGuardedVisitor(browser)).toBeNull();
  });

  it("are not waited for by a sign-out, the provider hanging", async () => {
    suite.upstream.handle(answerThingsApi(() => true));
    const browser = await signInAs("erin", "Erin", 1);
    suite.provider.answer = "hang";
    const refreshes = refreshCount();
    // Due once less than a quarter of its second remains; waiting longer only makes it more so.
    await sleep(1_000);
    expect((await browser.post(`${suite.app.url}/auth/sign-out`)).status).toBe(303);
    expect(refreshCount()).toBe(refreshes);
    expect(await getGuardedVisitor(browser)).toBeNull();
  });

  it.each<TokenAnswer>(["error-500", "hang"])(
    "that failed (%s) are tried again by the next request once the provider answers",
    async (failure) => {
      suite.upstream.handle(
        answerThingsApi((authorization) => authorization !== "Bearer dave-first-token"),
      );
      const browser = await signInAs("dave", "Dave");
      suite.provider.answer = failure;
      suite.provider.accessToken = "dave-second-token";
      const refreshes = refreshCount();
      await expectCataloguePage(await postFeature(browser), "SIGN_IN_REQUIRED");
      expect(refreshCount()).toBe(refreshes + 1);
      // The token is still valid: the visitor stays signed in.
      expect(await getGuardedVisitor(browser)).toBe("Dave");
      suite.provider.answer = "valid";
      const written = await postFeature(browser);
      expect(written.status).toBe(303);
      expect(refreshCount()).toBe(refreshes + 2);
    },
  );
});

describe("a provider that cannot be reached", () => {
  let app: RunningServer;

  beforeAll(async () => {
    const [listener, closedPort] = await Promise.all([reservePort(), getClosedPort()]);
    const issuer = `http://127.0.0.1:${closedPort}`;
    const env = { ORIGIN: listener.url, OIDC_ISSUER: issuer, OIDC_CLIENT_ID: "web-app" };
    app = await startServer(env, { listener });
  });

  afterAll(async () => {
    try {
      if (app) expectNoServerErrors(app, [503]);
    } finally {
      await app?.stop();
    }
  });

  it("answers sign-in with the 503 page, and pages still render signed out", async () => {
    await expectCataloguePage(await fetch(`${app.url}/auth/sign-in`), "SIGN_IN_UNAVAILABLE");
    const home = await fetch(`${app.url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain(">Sign in</a>");
  });

  it("says so once, however many visitors try to sign in", async () => {
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => fetch(`${app.url}/auth/sign-in?redirectTo=/`)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(503));
    }
    const warnings = getLogLines(app, WARN);
    console.log(
      `251 sign-ins against a provider that is down: ${warnings.length} warning line(s), ${warnings.join("").length} bytes`,
    );
    await expect.poll(() => getLogLines(app, WARN, "provider cannot be reached").length).toBe(1);
    expect(warnings.length).toBeLessThanOrEqual(2);
  });
});

describe("behind https (ORIGIN https)", () => {
  const suite = startSuiteWithScriptedProvider({ scheme: "https" });

  it("keeps the sign-in and the session in Secure __Host- cookies", async () => {
    const browser = new Browser();
    const start = await browser.fetch(`${suite.app.url}/auth/sign-in?redirectTo=/`);
    expect(start.headers.getSetCookie()).toEqual([
      expect.stringMatching(
        /^__Host-sign-in=[\w%.-]+; Max-Age=600; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
      ),
    ]);
    const authorize = await browser.fetch(start.headers.get("location")!);
    const callbackUrl = new URL(authorize.headers.get("location")!);
    expect(callbackUrl.origin).toBe(`https://127.0.0.1:${suite.app.port}`);
    const callback = await browser.fetch(
      `${suite.app.url}${callbackUrl.pathname}${callbackUrl.search}`,
    );
    expect(callback.status).toBe(303);
    expect(callback.headers.getSetCookie()).toEqual([
      "__Host-sign-in=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax",
      expect.stringMatching(
        /^__Host-session=[\w%.-]+; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
      ),
    ]);
  });
});
