import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { startSuiteServer } from "../support/server";

const KB = 1024;
const BUDGET = { javascriptGzip: 100 * KB, cssGzip: 10 * KB, html: 15 * KB };

const server = startSuiteServer();

/** What a page makes the browser load: its scripts (preloads and module imports) and stylesheets. */
async function getPageResources(path: string) {
  const html = await (await fetch(`${server.url}${path}`)).text();
  const scripts = new Set([
    ...[...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]!),
    ...[...html.matchAll(/<script[^>]* src="([^"]+)"/g)].map((m) => m[1]!),
    ...[...html.matchAll(/import (?:\* as \w+ from )?"(\/build\/[^"]+)"/g)].map((m) => m[1]!),
  ]);
  const stylesheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
  return { html, scripts: [...scripts], stylesheets };
}

async function download(url: string) {
  const response = await fetch(`${server.url}${url}`);
  expect(response.status, url).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

async function gzippedSize(urls: string[]) {
  const files = await Promise.all(urls.map(download));
  return files.reduce((sum, file) => sum + gzipSync(file).length, 0);
}

describe("the home page's budgets, as served by the production build", () => {
  it(`loads at most ${BUDGET.javascriptGzip / KB} KB of JavaScript, gzipped`, async () => {
    const { scripts } = await getPageResources("/");
    expect(scripts.length).toBeGreaterThan(0);
    expect(await gzippedSize(scripts)).toBeLessThanOrEqual(BUDGET.javascriptGzip);
  });

  it(`loads at most ${BUDGET.cssGzip / KB} KB of CSS, gzipped`, async () => {
    const { stylesheets } = await getPageResources("/");
    expect(stylesheets.length).toBeGreaterThan(0);
    expect(await gzippedSize(stylesheets)).toBeLessThanOrEqual(BUDGET.cssGzip);
  });

  it(`sends at most ${BUDGET.html / KB} KB of HTML`, async () => {
    const { html } = await getPageResources("/");
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(BUDGET.html);
  });

  it("carries no validation library: the theme control validates on the server", async () => {
    const { scripts } = await getPageResources("/");
    for (const url of scripts) {
      const source = (await download(url)).toString("utf8");
      expect({ url, conform: source.includes("__intent__"), zod: source.includes("$ZodType") }).toEqual({
        url,
        conform: false,
        zod: false,
      });
    }
  });
});

describe("a route that opts out of hydration", () => {
  it("ships no script at all, while hydrated pages do", async () => {
    const optedOut = await getPageResources("/preferences/theme");
    expect(optedOut.html).toContain("Not allowed here");
    expect(optedOut.html).not.toContain("<script");
    expect(optedOut.scripts).toEqual([]);
    expect((await getPageResources("/")).scripts.length).toBeGreaterThan(0);
  });

  it("still renders the rejected form with its error, scriptless", async () => {
    const response = await fetch(`${server.url}/preferences/theme`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "theme=purple&redirectTo=%2F",
    });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("Choose System, Light or Dark.");
    expect(html).not.toContain("<script");
  });
});
