import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSuiteServer, type RunningServer } from "../support/server";
import { createThingsApi } from "../support/things-api";
import { startUpstream, type Upstream } from "../support/upstream";
import { buildReferenceApp, referenceAppBuild } from "../support/reference-app";

const KB = 1024;
const BUDGET = { javascriptGzip: 110 * KB, cssGzip: 10 * KB, html: 15 * KB };

type Manifest = {
  entry: { module: string; imports?: string[] };
  routes: Record<string, { parentId?: string; module: string; imports?: string[] }>;
};

/** What a page makes the browser load: its scripts (preloads and module imports) and stylesheets. */
async function getPageResources(server: RunningServer, path: string, init?: RequestInit) {
  const html = await (await fetch(`${server.url}${path}`, init)).text();
  const scripts = new Set([
    ...[...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]!),
    ...[...html.matchAll(/<script[^>]* src="([^"]+)"/g)].map((m) => m[1]!),
    ...[...html.matchAll(/import (?:\* as \w+ from )?"(\/build\/[^"]+)"/g)].map((m) => m[1]!),
  ]);
  const stylesheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
  return { html, scripts: [...scripts], stylesheets };
}

async function download(server: RunningServer, url: string) {
  const response = await fetch(`${server.url}${url}`);
  expect(response.status, url).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

async function gzippedSize(server: RunningServer, urls: string[]) {
  const files = await Promise.all(urls.map((url) => download(server, url)));
  return files.reduce((sum, file) => sum + gzipSync(file).length, 0);
}

async function getManifest(server: RunningServer): Promise<Manifest> {
  // The page carries the routes it matched; the build's manifest file lists every route.
  const { html } = await getPageResources(server, "/");
  const manifestUrl = /"url":\s*"(\/build\/manifest-\w+\.js)"/.exec(html)?.[1];
  const source = (await download(server, manifestUrl!)).toString("utf8");
  return JSON.parse(source.replace(/^window\.__remixManifest=/, "").replace(/;\s*$/, "")) as Manifest;
}

/** Every script a route's page can load: the entry, then each route from the root down, with their imports. */
function getRouteScripts(manifest: Manifest, routeId: string) {
  const scripts = new Set([manifest.entry.module, ...(manifest.entry.imports ?? [])]);
  for (let id: string | undefined = routeId; id; id = manifest.routes[id]?.parentId) {
    const route = manifest.routes[id]!;
    for (const url of [route.module, ...(route.imports ?? [])]) scripts.add(url);
  }
  return [...scripts];
}

const kilobytes = (bytes: number) => `${(bytes / KB).toFixed(1)} KB`;

/**
 * Every route's JavaScript (from the build's manifest, so routes that need an upstream or
 * parameters count too), and each listed page's HTML and CSS as the server sends them.
 */
function describeBudgets(server: RunningServer, pages: { path: string; init?: RequestInit }[]) {
  it(`every route loads at most ${BUDGET.javascriptGzip / KB} KB of JavaScript, gzipped`, async () => {
    const manifest = await getManifest(server);
    const sizes: Record<string, string> = {};
    for (const routeId of Object.keys(manifest.routes)) {
      const size = await gzippedSize(server, getRouteScripts(manifest, routeId));
      sizes[routeId] = kilobytes(size);
      expect(size, routeId).toBeLessThanOrEqual(BUDGET.javascriptGzip);
    }
    console.log("JavaScript per route, gzipped:", sizes);
  });

  it(`every page sends at most ${BUDGET.html / KB} KB of HTML and ${BUDGET.cssGzip / KB} KB of CSS, gzipped`, async () => {
    const sizes: Record<string, string> = {};
    for (const { path, init } of pages) {
      const { html, scripts, stylesheets } = await getPageResources(server, path, init);
      const [javascript, css] = [await gzippedSize(server, scripts), await gzippedSize(server, stylesheets)];
      sizes[`${init?.method ?? "GET"} ${path}`] =
        `HTML ${kilobytes(Buffer.byteLength(html))}, CSS ${kilobytes(css)}, JavaScript ${kilobytes(javascript)}`;
      expect(stylesheets.length, path).toBeGreaterThan(0);
      expect(css, path).toBeLessThanOrEqual(BUDGET.cssGzip);
      expect(Buffer.byteLength(html), path).toBeLessThanOrEqual(BUDGET.html);
      expect(javascript, path).toBeLessThanOrEqual(BUDGET.javascriptGzip);
    }
    console.log("Served pages:", sizes);
  });
}

const formPost = (body: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body,
});

describe("the shipped app's budgets, as served by the production build", () => {
  const server = startSuiteServer();

  describeBudgets(server, [
    { path: "/" },
    { path: "/no/such/page" },
    { path: "/preferences/theme" },
    { path: "/preferences/theme", init: formPost("theme=purple&redirectTo=%2F") },
  ]);

  it("the home page carries no validation library: the theme control validates on the server", async () => {
    const { scripts } = await getPageResources(server, "/");
    expect(scripts.length).toBeGreaterThan(0);
    for (const url of scripts) {
      const source = (await download(server, url)).toString("utf8");
      expect({ url, conform: source.includes("__intent__"), zod: source.includes("$ZodType") }).toEqual({
        url,
        conform: false,
        zod: false,
      });
    }
  });

  it("a route that opts out of hydration ships no script at all, while hydrated pages do", async () => {
    const optedOut = await getPageResources(server, "/preferences/theme");
    expect(optedOut.html).toContain("Not allowed here");
    expect(optedOut.html).not.toContain("<script");
    expect(optedOut.scripts).toEqual([]);
    expect((await getPageResources(server, "/")).scripts.length).toBeGreaterThan(0);
  });

  it("still renders the rejected theme form with its error, scriptless", async () => {
    const response = await fetch(`${server.url}/preferences/theme`, formPost("theme=purple&redirectTo=%2F"));
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("Choose System, Light or Dark.");
    expect(html).not.toContain("<script");
  });
});

describe("the reference feature's budgets (tests/fixtures/reference-app)", () => {
  let upstream: Upstream;
  beforeAll(async () => {
    await buildReferenceApp();
    upstream = await startUpstream();
    upstream.handle(createThingsApi().handle);
  });
  afterAll(() => upstream?.close());
  const server = startSuiteServer(() => ({ API_BASE_URL: upstream.url }), { cwd: referenceAppBuild });

  describeBudgets(server, [
    { path: "/things" },
    { path: "/things?q=e&page=2" },
    { path: "/things/3" },
    { path: "/things/new" },
    { path: "/things/new", init: formPost("name=+&quantity=x&colour=&notes=") },
    { path: "/things/3/edit" },
    { path: "/things/3/delete" },
  ]);

  it("its form pages validate with Zod Mini, and no classic Zod reaches the browser", async () => {
    const { scripts } = await getPageResources(server, "/things/new");
    const sources = await Promise.all(scripts.map(async (url) => (await download(server, url)).toString()));
    expect(sources.some((source) => source.includes('"ZodMiniObject"'))).toBe(true);
    expect(sources.filter((source) => /"Zod(Object|String|Number)"/.test(source))).toEqual([]);
  });
});
