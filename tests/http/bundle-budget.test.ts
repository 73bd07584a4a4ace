import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { startSuiteMockedServer } from "../support/api-mock";
import { Browser, signInThroughProvider } from "../support/oidc-browser";
import { projectRoot, type RunningServer } from "../support/server";

const KB = 1024;
// Where each number comes from (figures in docs/performance.md); raise one only with its reason.
const BUDGET = {
  // React and Remix are 82.7 KB of every page and a form page is 101 KB: a tenth more is left
  // for a screen's own code.
  javascriptGzip: 110 * KB,
  // The three stylesheets are 1.7 KB; a product's own styles get the rest of 10 KB.
  cssGzip: 10 * KB,
  // What TCP's first round trip carries (an initial window of 10 segments, RFC 6928), so that the
  // document's first screen never waits on a second one; pages are sent compressed.
  htmlGzip: 14 * KB,
};

type Manifest = {
  entry: { module: string; imports?: string[] };
  routes: Record<string, { parentId?: string; path?: string; module: string; imports?: string[] }>;
};

/** What a page makes the browser load: its scripts (preloads and imports) and stylesheets. */
async function getPageResources(server: RunningServer, path: string, init: RequestInit = {}) {
  const picks = new Headers(init.headers).get("cookie");
  const headers = {
    ...init.headers,
    cookie: [cookies.get(server), picks].filter(Boolean).join("; "),
  };
  const response = await fetch(`${server.url}${path}`, { ...init, headers, redirect: "manual" });
  const contentType = response.headers.get("content-type") ?? "";
  const html = await response.text();
  const found = (pattern: RegExp) => [...html.matchAll(pattern)].map((m) => m[1]!);
  const scripts = new Set([
    ...found(/<link rel="modulepreload" href="([^"]+)"/g),
    ...found(/<script[^>]* src="([^"]+)"/g),
    ...found(/import (?:\* as \w+ from )?"(\/build\/[^"]+)"/g),
  ]);
  const stylesheets = found(/<link rel="stylesheet" href="([^"]+)"/g);
  return { contentType, status: response.status, html, scripts: [...scripts], stylesheets };
}

// A signed-in visitor's cookies, by the server that set them.
const cookies = new Map<RunningServer, string>();

async function download(server: RunningServer, url: string) {
  const response = await fetch(`${server.url}${url}`);
  expect(response.status, url).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

const readSources = (server: RunningServer, urls: string[]) =>
  Promise.all(urls.map(async (url) => (await download(server, url)).toString()));

async function gzippedSize(server: RunningServer, urls: string[]) {
  const files = await Promise.all(urls.map((url) => download(server, url)));
  return files.reduce((sum, file) => sum + gzipSync(file).length, 0);
}

async function getManifest(server: RunningServer): Promise<Manifest> {
  // The page carries the routes it matched; the build's manifest file lists every route.
  const { html } = await getPageResources(server, "/");
  const manifestUrl = /"url":\s*"(\/build\/manifest-\w+\.js)"/.exec(html)?.[1];
  const source = (await download(server, manifestUrl!)).toString("utf8");
  return JSON.parse(
    source.replace(/^window\.__remixManifest=/, "").replace(/;\s*$/, ""),
  ) as Manifest;
}

/** Every script a route's page can load: the entry, then each route from the root down. */
function getRouteScripts(manifest: Manifest, routeId: string) {
  const scripts = new Set([manifest.entry.module, ...(manifest.entry.imports ?? [])]);
  for (let id: string | undefined = routeId; id; id = manifest.routes[id]?.parentId) {
    const route = manifest.routes[id]!;
    for (const url of [route.module, ...(route.imports ?? [])]) scripts.add(url);
  }
  return [...scripts];
}

const kilobytes = (bytes: number) => `${(bytes / KB).toFixed(1)} KB`;

/** The address of a route's page: its path and its parents', any parameter 1, any splat a miss. */
function getRouteAddress(manifest: Manifest, routeId: string) {
  const segments: string[] = [];
  for (let id: string | undefined = routeId; id; id = manifest.routes[id]?.parentId) {
    const { path } = manifest.routes[id]!;
    if (path) segments.unshift(path);
  }
  const filled = segments
    .join("/")
    .split("/")
    .filter(Boolean)
    .map((segment) => (segment === "*" ? "no/such/page" : segment.startsWith(":") ? "1" : segment));
  return `/${filled.join("/")}`;
}

/** Measures one page as the server sends it: HTML, and the CSS and JavaScript it loads, gzipped. */
async function measurePage(server: RunningServer, label: string, path: string, init?: RequestInit) {
  const page = await getPageResources(server, path, init);
  if (!page.contentType.startsWith("text/html"))
    return `${page.status} ${page.contentType}, no page`;
  const javascript = await gzippedSize(server, page.scripts);
  const css = await gzippedSize(server, page.stylesheets);
  const html = gzipSync(page.html).length;
  expect(page.stylesheets.length, label).toBeGreaterThan(0);
  expect(css, label).toBeLessThanOrEqual(BUDGET.cssGzip);
  expect(html, label).toBeLessThanOrEqual(BUDGET.htmlGzip);
  expect(javascript, label).toBeLessThanOrEqual(BUDGET.javascriptGzip);
  const raw = kilobytes(Buffer.byteLength(page.html));
  const [gzipped, js] = [kilobytes(html), kilobytes(javascript)];
  return `HTML ${raw} (${gzipped} gzipped), CSS ${kilobytes(css)}, JS ${js}`;
}

/**
 * Every route's JavaScript (from the manifest, so routes that need an upstream or parameters count
 * too), every route's page and each of `posts`' answers; routes whose id starts with `skip` aside.
 */
function describeBudgets(server: RunningServer, { posts, skip }: { posts: Post[]; skip?: string }) {
  const getRouteIds = (manifest: Manifest) =>
    Object.keys(manifest.routes).filter((routeId) => !skip || !routeId.startsWith(skip));

  it(`every route loads at most ${BUDGET.javascriptGzip / KB} KB of JavaScript`, async () => {
    const manifest = await getManifest(server);
    const bytes: Record<string, number> = {};
    for (const routeId of getRouteIds(manifest))
      bytes[routeId] = await gzippedSize(server, getRouteScripts(manifest, routeId));
    const sizes = Object.entries(bytes).map(([routeId, size]) => [routeId, kilobytes(size)]);
    console.log("JavaScript per route, gzipped:", Object.fromEntries(sizes));
    for (const [routeId, size] of Object.entries(bytes))
      expect(size, routeId).toBeLessThanOrEqual(BUDGET.javascriptGzip);
  });

  it("every route's page, and each an action answers with, within all three budgets", async () => {
    const manifest = await getManifest(server);
    const sizes: Record<string, string> = {};
    for (const routeId of getRouteIds(manifest)) {
      const path = getRouteAddress(manifest, routeId);
      sizes[`${routeId} (GET ${path})`] = await measurePage(server, routeId, path);
    }
    for (const { path, body, picks } of posts) {
      sizes[`POST ${path} ${body.length > 60 ? `${body.slice(0, 60)}…` : body}`] =
        await measurePage(server, `POST ${path}`, path, formPost(body, picks));
    }
    console.log("Served pages:", sizes);
  });
}

/** A form post, with the API mock's answers `picks` picked (`createThing:422-nameTaken`). */
type Post = { path: string; body: string; picks?: string };

const formPost = (body: string, picks?: string): RequestInit => ({
  method: "POST",
  headers: {
    "content-type": "application/x-www-form-urlencoded",
    ...(picks ? { cookie: `api-mock=${picks}` } : {}),
  },
  body,
});

// Every page against its own scripted answers: the API mock's, from the contracts' examples
// (tests/support/api-mock.ts), so that a new screen is measured as its visitors would see it.
describe("the shipped app's budgets, as served by the production build", () => {
  const server = startSuiteMockedServer({}, { cwd: projectRoot });

  describeBudgets(server, {
    posts: [{ path: "/preferences/theme", body: "theme=purple&redirectTo=%2F" }],
  });

  it("the home page carries no form toolkit and no Zod: the theme form posts plainly", async () => {
    const { scripts } = await getPageResources(server, "/");
    expect(scripts.length).toBeGreaterThan(0);
    for (const [i, source] of (await readSources(server, scripts)).entries()) {
      expect(source.includes("__form__"), `the form toolkit in ${scripts[i]}`).toBe(false);
      expect(source.includes("$ZodType"), `Zod in ${scripts[i]}`).toBe(false);
    }
  });

  it("loads web vitals once hydrated, in a chunk no page preloads, outside every page's budget", async () => {
    const manifest = await getManifest(server);
    const sources = await readSources(server, getRouteScripts(manifest, "root"));
    const chunk = sources
      .map((source) => /"([^"]*web-vitals-\w+\.js)"/.exec(source)?.[1])
      .find(Boolean);
    expect(chunk, "a dynamic import of the web-vitals chunk").toBeDefined();
    const url = `/build/_shared/${chunk!.split("/").at(-1)}`;
    const size = await gzippedSize(server, [url]);
    console.log(`web vitals, loaded after hydration: ${kilobytes(size)} gzipped`);
    expect(size).toBeLessThan(5 * KB);
    for (const routeId of Object.keys(manifest.routes))
      expect(getRouteScripts(manifest, routeId), routeId).not.toContain(url);
    expect((await getPageResources(server, "/")).scripts).not.toContain(url);
  });

  it("a route that opts out of hydration ships no script, while hydrated pages do", async () => {
    const optedOut = await getPageResources(server, "/preferences/theme");
    expect(optedOut.html).toContain("Not allowed here");
    expect(optedOut.html).not.toContain("<script");
    expect(optedOut.scripts).toEqual([]);
    expect((await getPageResources(server, "/")).scripts.length).toBeGreaterThan(0);
  });

  it("still renders the rejected theme form with its error, scriptless", async () => {
    const response = await fetch(
      `${server.url}/preferences/theme`,
      formPost("theme=purple&redirectTo=%2F"),
    );
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("Choose System, Light or Dark.");
    expect(html).not.toContain("<script");
  });
});

// The pages an action answers with: a form's errors, a row's, a 409's.
const REFERENCE_POSTS: Post[] = [
  { path: "/things/new", body: "name=+&quantity=x&colour=&notes=" },
  {
    path: "/things/1/edit",
    body: `name=${"n".repeat(61)}&quantity=x&colour=&notes=${"n".repeat(501)}&version=0`,
  },
  { path: "/things/1?q=e", body: `__form__=thing-actions&intent=comment&text=${"c".repeat(501)}` },
  {
    path: "/things/1?q=e",
    body: "__form__=thing-actions&intent=status&status=archived&version=0",
    picks: "changeThingStatus:409-changed",
  },
  { path: "/things/stock", body: "__form__=stock&intent=update:3&3.version=1&3.quantity=x" },
  {
    path: "/things/stock",
    body: "__form__=stock&intent=update:3&3.version=0&3.quantity=5",
    picks: "setThingQuantity:409-changed",
  },
];

// The routes only tests use (tests/support/fault-routes) are no screen: one stops the process.
describe("the reference app's budgets (tests/fixtures/reference-app)", () => {
  const server = startSuiteMockedServer();

  describeBudgets(server, { skip: "faults/", posts: REFERENCE_POSTS });

  it("its form pages validate with Zod Mini, and no classic Zod reaches the browser", async () => {
    const { scripts } = await getPageResources(server, "/things/new");
    const sources = await readSources(server, scripts);
    expect(sources.some((source) => source.includes('"ZodMiniObject"'))).toBe(true);
    expect(sources.filter((source) => /"Zod(Object|String|Number)"/.test(source))).toEqual([]);
  });
});

// Signed in, the layout names the visitor and offers to sign out, and guarded pages render.
describe("the reference app's budgets, signed in through the API mock's provider", () => {
  const server = startSuiteMockedServer();
  beforeAll(async () => {
    const browser = new Browser();
    expect((await signInThroughProvider(browser, server.url, "editor")).status).toBe(303);
    cookies.set(server, browser.jar(server.url).header);
  });

  describeBudgets(server, { skip: "faults/", posts: REFERENCE_POSTS });

  it("a page whose only control is a button (featuring a thing) ships no validator", async () => {
    const page = await getPageResources(server, "/things/1/feature");
    expect(page.html).toContain("Feature Amber");
    const sources = await readSources(server, page.scripts);
    expect(sources.filter((source) => source.includes("$ZodType"))).toEqual([]);
  });
});
