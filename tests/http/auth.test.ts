import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { parseHtml } from "../support/html";
import {
  Browser,
  reachCallback,
  SESSION_CLEARED,
  signInThroughProvider,
} from "../support/oidc-browser";
import { startSuiteSignInApp } from "../support/oidc-app";
import { expectCataloguePage } from "../support/reference-app";

/** Who the home page shows as signed in, or null. */
const getVisitor = async (browser: Browser, url: string) =>
  parseHtml(await (await browser.fetch(`${url}/`)).text()).querySelector("header .visitor span")
    ?.textContent ?? null;

describe("sign-in with an OpenID Connect provider, without JavaScript", () => {
  const suite = startSuiteSignInApp();

  it("signs a visitor in, shows their name and signs them out at the provider too", async () => {
    const browser = new Browser();
    const callback = await signInThroughProvider(browser, suite.app.url, "ada", "/somewhere?x=1");
    expect(callback.status).toBe(303);
    expect(callback.headers.get("location")).toBe("/somewhere?x=1");
    const sessionCookie = callback.headers.getSetCookie().find((c) => c.startsWith("session="));
    expect(sessionCookie).toMatch(/; HttpOnly; SameSite=Lax$/);
    expect(sessionCookie).not.toMatch(/Secure/);

    const home = await browser.fetch(`${suite.app.url}/`);
    const html = await home.text();
    const page = parseHtml(html);
    expect(page.querySelector("header .visitor span")?.textContent).toBe("Ada Lovelace");
    const form = page.querySelector("header form.visitor");
    expect(form?.getAttribute("action")).toBe("/auth/sign-out");
    expect(form?.getAttribute("method")).toBe("post");
    expect(html).not.toMatch(/eyJ|access_?token|refresh_?token|id_?token/i);

    const signOut = await browser.submit(`${suite.app.url}/`, html, {}, "header form.visitor");
    expect(signOut.status).toBe(303);
    expect(signOut.headers.getSetCookie()).toContain(SESSION_CLEARED);
    const logoutPage = await browser.follow(signOut.headers.get("location")!);
    expect(logoutPage.url.startsWith(suite.provider.issuer)).toBe(true);
    const confirmed = await browser.submit(logoutPage.url, await logoutPage.response!.text(), {
      logout: "yes",
    });
    const back = await browser.follow(
      new URL(confirmed.headers.get("location")!, logoutPage.url).href,
    );
    expect(back.url).toBe(`${suite.app.url}/`);
    const signedOut = parseHtml(await back.response!.text());
    expect(signedOut.querySelector("header a.visitor")?.getAttribute("href")).toBe(
      "/auth/sign-in?redirectTo=%2F",
    );
  });

  it("costs a signed-in page little more than a signed-out one (figures printed)", async () => {
    const PAGES = 30;
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "ada");
    const timePages = async (visitor: Browser) => {
      const names = new Set<string | null | undefined>();
      const startedAt = performance.now();
      for (let i = 0; i < PAGES; i++) {
        const html = await (await visitor.fetch(`${suite.app.url}/`)).text();
        names.add(parseHtml(html).querySelector("header .visitor span")?.textContent);
      }
      return { names: [...names], msEach: (performance.now() - startedAt) / PAGES };
    };
    // A first round warms the server up, so both rounds measure the same server.
    await timePages(browser);
    const signedOut = await timePages(new Browser());
    const signedIn = await timePages(browser);
    console.log(
      `home page, ${PAGES} in a row: signed out ${signedOut.msEach.toFixed(2)} ms each, signed in (session in memory) ${signedIn.msEach.toFixed(2)} ms each`,
    );
    expect(signedOut.names).toEqual([undefined]);
    expect(signedIn.names).toEqual(["Ada Lovelace"]);
  });

  it("starts a new session at every sign-in", async () => {
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "ada");
    const first = browser.jar(suite.app.url).get("session");
    browser.forget(suite.provider.issuer);
    await signInThroughProvider(browser, suite.app.url, "bob");
    const second = browser.jar(suite.app.url).get("session");
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(await getVisitor(browser, suite.app.url)).toBe("Bob Visitor");
  });

  it.each(["//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"])(
    "never sends a visitor off the site after sign-in (redirectTo %s)",
    async (redirectTo) => {
      const callback = await signInThroughProvider(new Browser(), suite.app.url, "ada", redirectTo);
      expect(callback.status).toBe(303);
      expect(callback.headers.get("location")).toBe("/");
    },
  );

  it("refuses a callback this browser did not start (login CSRF)", async () => {
    const attacker = new Browser();
    const callbackUrl = await reachCallback(attacker, suite.app.url, "bob");
    const answer = await new Browser().fetch(callbackUrl);
    await expectCataloguePage(answer, "SIGN_IN_EXPIRED");
    expect(answer.headers.getSetCookie().some((c) => c.startsWith("session="))).toBe(false);
  });

  it("refuses a callback replayed with the transaction cookie kept", async () => {
    const browser = new Browser();
    const callbackUrl = await reachCallback(browser, suite.app.url, "ada");
    const transaction = browser.jar(suite.app.url).get("sign-in")!;
    expect((await browser.fetch(callbackUrl)).status).toBe(303);
    const replay = new Browser();
    replay.jar(suite.app.url).set("sign-in", transaction);
    await expectCataloguePage(await replay.fetch(callbackUrl), "SIGN_IN_EXPIRED");
  });

  it("refuses a state that is not the one this browser was given", async () => {
    const browser = new Browser();
    const callbackUrl = await reachCallback(browser, suite.app.url, "ada");
    const forged = new URL(callbackUrl);
    forged.searchParams.set("state", "forged");
    await expectCataloguePage(await browser.fetch(forged.href), "SIGN_IN_EXPIRED");
    forged.searchParams.delete("state");
    await expectCataloguePage(await browser.fetch(forged.href), "SIGN_IN_EXPIRED");
  });

  it("refuses a callback with its code missing, empty or repeated, or its state or issuer repeated", async () => {
    const browser = new Browser();
    const callbackUrl = new URL(await reachCallback(browser, suite.app.url, "ada"));
    const malformed = [
      (url: URL) => url.searchParams.append("code", "another"),
      (url: URL) => url.searchParams.delete("code"),
      (url: URL) => url.searchParams.set("code", ""),
      (url: URL) => url.searchParams.append("state", url.searchParams.get("state")!),
      (url: URL) => {
        const issuer = url.searchParams.get("iss") ?? suite.provider.issuer;
        url.searchParams.set("iss", issuer);
        url.searchParams.append("iss", issuer);
      },
    ];
    for (const change of malformed) {
      const url = new URL(callbackUrl);
      change(url);
      const answer = await browser.fetch(url.href);
      expect(answer.headers.get("cache-control")).toBe("no-store");
      await expectCataloguePage(answer, "BAD_REQUEST");
    }
  });

  it.each(["garbage", "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..a.b.c", "x".repeat(3_000)])(
    "shows a page signed out to a session cookie it did not make (%#)",
    async (value) => {
      const browser = new Browser();
      browser.jar(suite.app.url).set("session", value);
      const home = await browser.fetch(`${suite.app.url}/`);
      expect(home.status).toBe(200);
      const link = parseHtml(await home.text()).querySelector("header a.visitor");
      expect(link?.textContent).toBe("Sign in");
    },
  );

  it("shows the provider's refusal as a page with a way back", async () => {
    const answer = await new Browser().fetch(
      `${suite.app.url}/auth/callback?error=access_denied&state=x`,
    );
    await expectCataloguePage(answer, "SIGN_IN_DENIED");
  });

  it("signs out only by POST, and says so in Allow", async () => {
    for (const method of ["GET", "HEAD"]) {
      const answer = await fetch(`${suite.app.url}/auth/sign-out`, { method });
      expect(answer.status).toBe(405);
      expect(answer.headers.get("allow")).toBe("POST");
      expect(answer.headers.get("cache-control")).toBe("no-store");
      if (method === "GET") await expectCataloguePage(answer, "METHOD_NOT_ALLOWED");
    }
  });

  it("refuses, after sign-out, every copy of the session cookie taken before", async () => {
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "ada");
    const copy = browser.jar(suite.app.url).get("session")!;
    const html = await (await browser.fetch(`${suite.app.url}/`)).text();
    const signOut = await browser.submit(`${suite.app.url}/`, html, {}, "header form.visitor");
    expect(signOut.status).toBe(303);
    const replayed = new Browser();
    replayed.jar(suite.app.url).set("session", copy);
    const home = await replayed.fetch(`${suite.app.url}/`);
    const link = parseHtml(await home.text()).querySelector("header a.visitor");
    expect(link?.textContent).toBe("Sign in");
    // The stale cookie is cleared, so the visitor's next pages may be cached again.
    expect(home.headers.getSetCookie()).toContain(SESSION_CLEARED);
    expect(home.headers.get("cache-control")).toBe("no-store");
    expect((await replayed.fetch(`${suite.app.url}/`)).headers.get("cache-control")).toBe(
      "private, no-cache",
    );
  });

  it("lets no cache keep an answer that shows who the visitor is", async () => {
    const cacheControl = (response: Response) => response.headers.get("cache-control");
    const signedOut = new Browser();
    expect(cacheControl(await signedOut.fetch(`${suite.app.url}/`))).toBe("private, no-cache");
    expect(cacheControl(await signedOut.fetch(`${suite.app.url}/_root.data`))).toBe(
      "private, no-cache",
    );

    const browser = new Browser();
    const start = await browser.fetch(`${suite.app.url}/auth/sign-in?redirectTo=/`);
    expect(cacheControl(start)).toBe("no-store");
    const callback = await signInThroughProvider(browser, suite.app.url, "ada");
    expect(cacheControl(callback)).toBe("no-store");
    for (const path of ["/", "/_root.data", "/nowhere", "/nowhere.data"]) {
      expect(cacheControl(await browser.fetch(`${suite.app.url}${path}`)), path).toBe("no-store");
    }
    const failed = await new Browser().fetch(`${suite.app.url}/auth/callback?code=x&state=y`);
    expect(failed.status).toBe(400);
    expect(cacheControl(failed)).toBe("no-store");
    const signOut = await browser.post(`${suite.app.url}/auth/sign-out`);
    expect(signOut.status).toBe(303);
    expect(cacheControl(signOut)).toBe("no-store");
  });
});

describe("session lifetimes", () => {
  // Long enough apart that a busy machine's slow requests never blur which end came first.
  const IDLE_SECONDS = 4;
  const MAX_SECONDS = 10;
  const suite = startSuiteSignInApp({
    env: { SESSION_IDLE_SECONDS: String(IDLE_SECONDS), SESSION_MAX_SECONDS: String(MAX_SECONDS) },
  });
  const visitorOf = (browser: Browser) => getVisitor(browser, suite.app.url);

  it("end a session left idle", async () => {
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "ada");
    expect(await visitorOf(browser)).toBe("Ada Lovelace");
    await sleep((IDLE_SECONDS + 1) * 1_000);
    expect(await visitorOf(browser)).toBeNull();
  });

  it("end a session at its absolute end, however active", async () => {
    const browser = new Browser();
    // The session starts between these two moments.
    const before = performance.now();
    await signInThroughProvider(browser, suite.app.url, "ada");
    const after = performance.now();
    while (performance.now() < before + (MAX_SECONDS - 3) * 1_000) {
      expect(await visitorOf(browser)).toBe("Ada Lovelace");
      await sleep(1_000);
    }
    await sleep(after + (MAX_SECONDS + 1) * 1_000 - performance.now());
    expect(await visitorOf(browser)).toBeNull();
  });
});
