import { afterAll, beforeAll, describe, expect, it } from "vitest";
import en from "~/i18n/shell.en.server";
import { parseHtml } from "../support/html";
import { startNginx, type LoadBalancer } from "../support/nginx";
import { Browser, signInThroughProvider } from "../support/oidc-browser";
import { signInEnv, startOpenIdProvider, type OpenIdProvider } from "../support/oidc-provider";
import { startReferenceAppServer } from "../support/reference-app";
import {
  expectNoServerErrors,
  HANG_TIMEOUT_MS,
  reservePort,
  startServer,
  type RunningServer,
} from "../support/server";

// The cache policy (decision 021) as the built server answers: each page's rule merged from its
// routes', and anonymous pages revalidated with a tag known before rendering.

const { server } = startReferenceAppServer();

const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${server.url}${path}`, { method, headers, redirect: "manual" });

async function getTag(path: string, headers: Record<string, string> = {}) {
  const response = await get(path, headers);
  await response.arrayBuffer();
  return response.headers.get("etag");
}

/** Sets the dark theme through `base`, as a form without JavaScript does. */
const postDarkTheme = (base: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/preferences/theme`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: "theme=dark&redirectTo=%2F",
    redirect: "manual",
  });

const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");

const PRIVATE = "private, no-cache";
const EPOCH = new Date(0).toUTCString();
const NOW = new Date().toUTCString();

describe("each page's rule, the strictest of its routes'", () => {
  it.each([
    ["a child's no-store under a parent's max-age=60", "/faults/cache/no-store", "no-store", false],
    ["the same as single fetch data", "/faults/cache/no-store.data", "no-store", false],
    ["a child stating no rule under that parent", "/faults/cache/unstated", PRIVATE, true],
    ["the parent's own page, under the layouts", "/faults/cache", PRIVATE, true],
    ["the home page", "/", PRIVATE, true],
    ["a page with deferred data", "/later/1", PRIVATE, false],
    ["the 404 page", "/no/such/page", PRIVATE, false],
  ])("%s: %s", async (_name, path, cacheControl, tagged) => {
    const response = await get(path);
    await response.arrayBuffer();
    expect(response.headers.get("cache-control")).toBe(cacheControl);
    expect(response.headers.has("etag")).toBe(tagged);
  });
});

describe("revalidating an anonymous page", () => {
  it("gives the same weak tag for the same page, and another for another address", async () => {
    const tag = await getTag("/");
    expect(tag).toMatch(/^W\/"[\w-]{43}"$/);
    expect(await getTag("/")).toBe(tag);
    expect(await getTag("/?utm_source=x")).not.toBe(tag);
    expect(await getTag("/faults/cache/unstated")).not.toBe(tag);
  });

  // RFC 9110 §15.4.5: what a 304 must carry of its 200, for a cache to refresh its copy with.
  const REFRESHED = ["cache-control", "content-location", "etag", "expires", "vary"];

  it.each(["/", "/faults/cache/unstated", "/faults/cache"])(
    "answers %s with a 304 carrying its 200's tag, rule, Vary and Expires, and no policy, cookie or body",
    async (path) => {
      for (const method of ["GET", "HEAD"]) {
        const headers = { "accept-encoding": "gzip, br" };
        const full = await get(path, headers, method);
        await full.arrayBuffer();
        const tag = full.headers.get("etag")!;
        const response = await get(path, { ...headers, "if-none-match": tag }, method);
        expect(response.status, method).toBe(304);
        expect(await response.text()).toBe("");
        for (const name of REFRESHED)
          expect(response.headers.get(name), `${method} ${name}`).toBe(full.headers.get(name));
        expect(response.headers.has("date")).toBe(true);
        for (const name of [
          "content-security-policy",
          "set-cookie",
          "content-type",
          "content-length",
        ])
          expect(response.headers.has(name), name).toBe(false);
      }
    },
  );

  it("answers a HEAD with the headers of its GET, and no length its GET would not have", async () => {
    const headers = { "accept-encoding": "gzip" };
    const [got, head] = [await get("/", headers), await get("/", headers, "HEAD")];
    expect(got.headers.get("content-encoding")).toBe("gzip");
    expect(got.headers.has("content-length")).toBe(false);
    expect(head.headers.has("content-length")).toBe(false);
    for (const name of ["cache-control", "content-type", "content-language", "etag", "vary"])
      expect(head.headers.get(name), name).toBe(got.headers.get(name));
  });

  it.each([
    ["the tag itself", 304, (tag: string) => tag],
    ["its strong form (compared weakly)", 304, (tag: string) => tag.slice(2)],
    ["`*`, any current page", 304, () => "*"],
    ["the tag among 2,000 others", 304, (tag: string) => `${'W/"x", '.repeat(2_000)}${tag}`],
    ["a forged tag", 200, () => 'W/"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"'],
    ["the tag cut short", 200, (tag: string) => tag.slice(0, -3) + '"'],
    ["the tag unquoted", 200, (tag: string) => tag.slice(3, -1)],
    ["an empty tag", 200, () => 'W/""'],
    ["2,000 other tags", 200, () => 'W/"x", '.repeat(2_000).slice(0, -2)],
  ])("If-None-Match with %s: %d", async (_name, status, ifNoneMatch) => {
    const tag = (await getTag("/"))!;
    for (const method of ["GET", "HEAD"]) {
      const response = await get("/", { "if-none-match": ifNoneMatch(tag) }, method);
      await response.arrayBuffer();
      expect(response.status, method).toBe(status);
    }
  });

  // RFC 9110 §13.2.2's order; no page has a strong tag or a Last-Modified.
  it.each([
    ["If-Match naming the page's tag, which is weak", 412, (tag: string) => ({ "if-match": tag })],
    ["If-Match naming its strong form", 412, (tag: string) => ({ "if-match": tag.slice(2) })],
    ["If-Match naming another tag", 412, () => ({ "if-match": '"x", W/"y"' })],
    ["If-Match: *, any current page", 200, () => ({ "if-match": "*" })],
    [
      "a failing If-Match beside an If-None-Match naming the tag",
      412,
      (tag: string) => ({ "if-match": '"x"', "if-none-match": tag }),
    ],
    [
      "If-Match: * and an If-None-Match naming the tag",
      304,
      (tag: string) => ({ "if-match": "*", "if-none-match": tag }),
    ],
    [
      "If-None-Match naming the tag beside an If-Modified-Since it outranks",
      304,
      (tag: string) => ({ "if-none-match": tag, "if-modified-since": EPOCH }),
    ],
    [
      "If-Unmodified-Since, with no Last-Modified to compare",
      200,
      () => ({ "if-unmodified-since": EPOCH }),
    ],
    [
      "If-Modified-Since, with no Last-Modified to compare",
      200,
      () => ({ "if-modified-since": NOW }),
    ],
  ])("%s: %d", async (_name, status, conditions) => {
    const tag = (await getTag("/"))!;
    for (const method of ["GET", "HEAD"]) {
      const response = await get("/", conditions(tag), method);
      expect(response.status, method).toBe(status);
      if (method === "GET" && status === 412) {
        const page = parseHtml(await response.text());
        expect(page.querySelector("main h1")?.textContent).toBe(
          en["errors.PRECONDITION_FAILED.title"],
        );
      } else await response.arrayBuffer();
    }
  });

  it("refuses a write whose If-Match no page can meet before its action runs, and ignores it on a 404", async () => {
    const refused = await postDarkTheme(server.url, { "if-match": '"x"' });
    expect(refused.status).toBe(412);
    expect(refused.headers.getSetCookie()).toEqual([]);
    expect((await postDarkTheme(server.url, { "if-match": "*" })).status).toBe(303);
    const missing = await get("/no/such/page", { "if-match": '"x"' });
    expect(missing.status).toBe(404);
  });

  it("never answers a write or another page with 304", async () => {
    const tag = (await getTag("/"))!;
    const post = await fetch(`${server.url}/`, {
      method: "POST",
      headers: { "if-none-match": tag, "content-type": "application/x-www-form-urlencoded" },
      body: "a=1",
    });
    expect(post.status).toBe(405);
    expect((await get("/faults/cache/unstated", { "if-none-match": tag })).status).toBe(200);
  });

  it("tags what the visitor's cookies change, and gives none to a page that sets one", async () => {
    const posted = await postDarkTheme(server.url);
    expect(posted.status).toBe(303);
    const cookies = cookiesOf(posted);
    // The flash is shown once and cleared by a cookie: that page is no copy to keep.
    const withFlash = await get("/", { cookie: cookies });
    expect(await withFlash.text()).toContain("Theme set to Dark.");
    expect(withFlash.headers.getSetCookie().length).toBeGreaterThan(0);
    expect(withFlash.headers.has("etag")).toBe(false);
    const themeOnly = cookies.split("; ").filter((cookie) => cookie.startsWith("theme="))[0]!;
    const darkTag = await getTag("/", { cookie: themeOnly });
    const plainTag = (await getTag("/"))!;
    expect(darkTag).toMatch(/^W\//);
    expect(darkTag).not.toBe(plainTag);
    expect((await get("/", { cookie: themeOnly, "if-none-match": plainTag })).status).toBe(200);
  });
});

describe("behind a shared cache (nginx keeping whatever the headers allow for 10 minutes)", () => {
  let provider: OpenIdProvider;
  let app: RunningServer;
  let cache: LoadBalancer;

  beforeAll(async () => {
    const listener = await reservePort();
    provider = await startOpenIdProvider({ appOrigins: [listener.url] });
    app = await startServer(signInEnv(provider, listener.url));
    cache = await startNginx([app.port], listener, { cache: true });
  }, HANG_TIMEOUT_MS);

  afterAll(async () => {
    try {
      if (app) expectNoServerErrors(app);
    } finally {
      await Promise.all([cache?.stop(), app?.stop(), provider?.close()]);
    }
  });

  const through = async (browser: Browser, path: string, headers: Record<string, string> = {}) => {
    const response = await browser.fetch(`${cache.url}${path}`, { headers });
    return { response, html: await response.text(), from: response.headers.get("x-cache-status") };
  };

  it("keeps the browser build and no page, so no visitor's cookie is frozen into one", async () => {
    const visitor = new Browser();
    const page = await through(visitor, "/");
    const script = /<link rel="modulepreload" href="(\/build\/[^"]+)"/.exec(page.html)![1]!;
    expect((await through(visitor, script)).from).toBe("MISS");
    expect((await through(visitor, script)).from).toBe("HIT");
    const dark = await postDarkTheme(cache.url, { origin: cache.url });
    const themeCookie = dark.headers.getSetCookie().find((cookie) => cookie.startsWith("theme="))!;
    const darkVisitor = new Browser();
    darkVisitor.jar(cache.url).set("theme", themeCookie.split(";")[0]!.slice("theme=".length));
    expect((await through(darkVisitor, "/")).html).toContain('data-theme="dark"');
    for (let i = 0; i < 2; i++) {
      const again = await through(visitor, "/");
      expect(again.from).not.toBe("HIT");
      expect(again.html).toContain('data-theme="system"');
    }
  });

  it("never keeps a signed-in page, nor shows it to another visitor or after sign-out", async () => {
    const ada = new Browser();
    await signInThroughProvider(ada, cache.url, "ada");
    for (let i = 0; i < 2; i++) {
      const page = await through(ada, "/");
      expect(page.html).toContain("Ada Lovelace");
      expect(page.response.headers.get("cache-control")).toBe("no-store");
      expect(page.response.headers.has("etag")).toBe(false);
      expect(page.from).not.toBe("HIT");
    }
    const stranger = await through(new Browser(), "/");
    expect(stranger.html).not.toContain("Ada Lovelace");
    expect(stranger.from).not.toBe("HIT");
    const signOutPage = await through(ada, "/");
    const signOut = 'form[action="/auth/sign-out"]';
    const signedOut = await ada.submit(`${cache.url}/`, signOutPage.html, {}, signOut);
    expect(signedOut.status).toBe(303);
    const after = await through(ada, "/");
    expect(after.html).not.toContain("Ada Lovelace");
    expect(after.from).not.toBe("HIT");
  });

  it("answers a revalidation whole, with the policy naming the page's own nonce", async () => {
    const visitor = new Browser();
    const tag = (await through(visitor, "/")).response.headers.get("etag")!;
    // nginx asks the app without the browser's If-None-Match when its cache is on for the address.
    const again = await through(visitor, "/", { "if-none-match": tag });
    expect(again.response.status).toBe(200);
    const policy = again.response.headers.get("content-security-policy")!;
    const nonce = /'nonce-([^']+)'/.exec(policy)![1];
    expect(again.html).toContain(`nonce="${nonce}"`);
  });
});
