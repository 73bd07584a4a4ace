import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser } from "../support/oidc-browser";
import {
  startScriptedProvider,
  type ScriptedProvider,
  type TokenAnswer,
} from "../support/oidc-scripted-provider";
import { getFreePort } from "../support/ports";
import { expectCataloguePage } from "../support/reference-app";
import { startServer, expectNoServerErrors, type RunningServer } from "../support/server";

/** Starts a sign-in at the app and follows the scripted provider straight back to the callback. */
async function signIn(browser: Browser, app: RunningServer) {
  const start = await browser.fetch(`${app.url}/auth/sign-in?redirectTo=/`);
  if (start.status !== 303) return start;
  const authorize = await browser.fetch(start.headers.get("location")!);
  return browser.fetch(authorize.headers.get("location")!);
}

/**
 * A built server signing in through a scripted provider, for the enclosing `describe`; after its
 * tests, no 5xx but `expectedStatuses` and no error-level log line.
 */
function startSuiteWithScriptedProvider({
  scheme = "http",
  env = {},
  expectedStatuses = [],
}: { scheme?: string; env?: Record<string, string>; expectedStatuses?: number[] } = {}) {
  const suite = {} as { provider: ScriptedProvider; app: RunningServer };
  beforeAll(async () => {
    const port = await getFreePort();
    suite.provider = await startScriptedProvider();
    suite.app = await startServer({
      PORT: String(port),
      ORIGIN: `${scheme}://127.0.0.1:${port}`,
      OIDC_ISSUER: suite.provider.issuer,
      OIDC_CLIENT_ID: suite.provider.clientId,
      ...env,
    });
  });
  afterAll(async () => {
    try {
      if (suite.app) expectNoServerErrors(suite.app, expectedStatuses);
    } finally {
      await Promise.all([suite.app?.stop(), suite.provider?.close()]);
    }
  });
  return suite;
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
    expect(callback.headers.getSetCookie().some((cookie) => cookie.startsWith("session="))).toBe(false);
    expect(browser.jar(suite.app.url).get("session")).toBeUndefined();
  });
});

describe("a provider that cannot be reached", () => {
  let app: RunningServer;

  beforeAll(async () => {
    const [port, closedPort] = await Promise.all([getFreePort(), getFreePort()]);
    app = await startServer({
      PORT: String(port),
      ORIGIN: `http://127.0.0.1:${port}`,
      OIDC_ISSUER: `http://127.0.0.1:${closedPort}`,
      OIDC_CLIENT_ID: "web-app",
    });
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
});

describe("behind https (ORIGIN https)", () => {
  const suite = startSuiteWithScriptedProvider({ scheme: "https" });

  it("keeps the sign-in and the session in Secure __Host- cookies", async () => {
    const browser = new Browser();
    const start = await browser.fetch(`${suite.app.url}/auth/sign-in?redirectTo=/`);
    expect(start.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^__Host-sign-in=[\w.-]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax; Secure$/),
    ]);
    const authorize = await browser.fetch(start.headers.get("location")!);
    const callbackUrl = new URL(authorize.headers.get("location")!);
    expect(callbackUrl.origin).toBe(`https://127.0.0.1:${suite.app.port}`);
    const callback = await browser.fetch(`${suite.app.url}${callbackUrl.pathname}${callbackUrl.search}`);
    expect(callback.status).toBe(303);
    expect(callback.headers.getSetCookie()).toEqual([
      "__Host-sign-in=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure",
      expect.stringMatching(/^__Host-session=[\w.-]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax; Secure$/),
    ]);
  });
});
