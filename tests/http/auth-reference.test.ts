import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { parseHtml } from "../support/html";
import { Browser, SESSION_CLEARED, signInThroughProvider } from "../support/oidc-browser";
import { answerThingsApi, bearer, countRefreshes, startSuiteSignInApp } from "../support/oidc-app";
import { expectCataloguePage } from "../support/reference-app";

const SIGN_IN_FOR_FEATURE = "/auth/sign-in?redirectTo=%2Fthings%2F1%2Ffeature";

describe("the reference feature's guarded write", () => {
  const suite = startSuiteSignInApp({ referenceApp: true });
  const feature = () => `${suite.app.url}/things/1/feature`;

  it("sends a signed-out visitor to sign in and back to the page they asked for", async () => {
    suite.upstream.handle(answerThingsApi(bearer));
    const browser = new Browser();
    const page = await browser.fetch(feature());
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(SIGN_IN_FOR_FEATURE);
    const callback = await signInThroughProvider(
      browser,
      suite.app.url,
      "ada",
      "/things/1/feature",
    );
    expect(callback.headers.get("location")).toBe("/things/1/feature");
    const guarded = await browser.fetch(feature());
    expect(guarded.status).toBe(200);
    expect(parseHtml(await guarded.text()).querySelector("h1")?.textContent).toBe("Feature Anchor");
  });

  it("answers a signed-out write 401 with the catalogue page", async () => {
    await expectCataloguePage(await new Browser().post(feature()), "SIGN_IN_REQUIRED");
  });

  it("answers 403 to a visitor without the role, for the page and the write", async () => {
    suite.upstream.handle(answerThingsApi(bearer));
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "bob");
    await expectCataloguePage(await browser.fetch(feature()), "FORBIDDEN");
    await expectCataloguePage(await browser.post(feature()), "FORBIDDEN");
    expect(suite.upstream.received.filter((request) => request.method === "PUT")).toEqual([]);
  });

  it("sends the visitor's access token on their calls only", async () => {
    suite.upstream.handle(answerThingsApi(bearer));
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "ada");
    const written = await browser.post(feature());
    expect(written.status).toBe(303);
    expect(written.headers.get("location")).toBe("/things/1");
    const put = suite.upstream.received.find((request) => request.method === "PUT");
    expect(bearer(put?.headers.authorization)).toBe(true);
    await browser.fetch(feature());
    const read = suite.upstream.received.find((request) => request.method === "GET");
    expect(read?.headers.authorization).toBeUndefined();
  });

  it("refreshes the token once when the API refuses it, and sends the call again", async () => {
    const seen: string[] = [];
    suite.upstream.handle(
      answerThingsApi((authorization, attempt) => (seen.push(authorization!), attempt > 1)),
    );
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "ada");
    const refreshesBefore = countRefreshes(suite.provider);
    expect((await browser.post(feature())).status).toBe(303);
    expect(seen).toHaveLength(2);
    expect(seen[1]).not.toBe(seen[0]);
    expect(countRefreshes(suite.provider)).toBe(refreshesBefore + 1);

    // The refreshed tokens are kept server-side: the next call carries them, the cookie unchanged.
    const cookieAfterWrite = browser.jar(suite.app.url).get("session");
    expect((await browser.fetch(feature())).status).toBe(200);
    expect(browser.jar(suite.app.url).get("session")).toBe(cookieAfterWrite);
    expect((await browser.post(feature())).status).toBe(303);
    expect(seen).toEqual([seen[0], seen[1], seen[1]]);
    expect(countRefreshes(suite.provider)).toBe(refreshesBefore + 1);
  });

  it("asks the visitor to sign in again when the API refuses the fresh token too", async () => {
    suite.upstream.handle(answerThingsApi(() => false));
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "ada");
    await expectCataloguePage(await browser.post(feature()), "SIGN_IN_REQUIRED");
    expect(suite.upstream.received.filter((request) => request.method === "PUT")).toHaveLength(2);
  });
});

describe("access tokens near their expiry", () => {
  const ACCESS_TOKEN_SECONDS = 4;
  const suite = startSuiteSignInApp({
    referenceApp: true,
    provider: { accessTokenSeconds: ACCESS_TOKEN_SECONDS },
  });

  const feature = () => `${suite.app.url}/things/1/feature`;
  const refreshCount = () => countRefreshes(suite.provider);
  beforeAll(() => suite.upstream.handle(answerThingsApi(bearer)));

  it("are refreshed before they expire, once for requests arriving together", async () => {
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "ada");
    const before = refreshCount();
    // Within the last quarter of the token's life.
    await sleep(ACCESS_TOKEN_SECONDS * 800);
    const pages = await Promise.all([1, 2, 3].map(() => browser.fetch(feature())));
    expect(pages.map((page) => page.status)).toEqual([200, 200, 200]);
    expect(refreshCount()).toBe(before + 1);
    expect((await browser.fetch(feature())).status).toBe(200);
    expect(refreshCount()).toBe(before + 1);
  });

  it("sign the visitor out at once when the provider refuses to refresh them", async () => {
    suite.provider.accounts.set("cy", { name: "Cy Leaving", roles: ["editor"] });
    const browser = new Browser();
    await signInThroughProvider(browser, suite.app.url, "cy");
    suite.provider.accounts.delete("cy");
    // Due for a refresh, which the provider refuses, though the token has not expired yet.
    await sleep(ACCESS_TOKEN_SECONDS * 800);
    const page = await browser.fetch(feature());
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(SIGN_IN_FOR_FEATURE);
    expect(page.headers.getSetCookie()).toContain(SESSION_CLEARED);
    const refreshes = refreshCount();
    expect((await browser.fetch(feature())).status).toBe(303);
    expect(refreshCount()).toBe(refreshes);
  });
});
