import { beforeAll, describe, expect, it } from "vitest";
import { readMainThreadCpuMs } from "../support/process-stats";
import { buildReferenceApp, referenceAppBuild } from "../support/reference-app";
import { LOOP_DELAY_OPTIONS, readLoopDelay } from "../support/request-cost";
import { startSuiteServer } from "../support/server";
import { startUpstream, type Upstream } from "../support/upstream";

// An error document asked for again is kept and sent again to whoever would get the very same
// one; each still gets its own nonce, and a visitor's own layout (here the theme).

const server = startSuiteServer();

async function visit(path: string, cookie?: string) {
  const response = await fetch(`${server.url}${path}`, { headers: cookie ? { cookie } : {} });
  const html = await response.text();
  const nonce = /'nonce-([^']+)'/.exec(response.headers.get("content-security-policy") ?? "")?.[1];
  return { status: response.status, html, nonce };
}

async function getThemeCookie(theme: string) {
  const response = await fetch(`${server.url}/preferences/theme`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ theme, redirectTo: "/" }).toString(),
  });
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

const nonces = (html: string) => [...html.matchAll(/nonce="([^"]+)"/g)].map((match) => match[1]);
const withoutNonces = (html: string) => html.replaceAll(/nonce="[^"]+"/g, "");
const themeOf = (html: string) => /<html lang="en" dir="ltr" data-theme="(\w+)"/.exec(html)?.[1];

describe("an error document sent again", () => {
  it("carries each request's own nonce, the one its policy names, and nothing else differs", async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await visit("/no-such-page?again"));
    for (const { status, html, nonce } of answers) {
      expect(status).toBe(404);
      expect(nonces(html).length).toBeGreaterThan(0);
      expect(new Set(nonces(html))).toEqual(new Set([nonce]));
    }
    expect(new Set(answers.map(({ nonce }) => nonce)).size).toBe(4);
    expect(new Set(answers.map(({ html }) => withoutNonces(html))).size).toBe(1);
  });

  it("shows each visitor their own theme", async () => {
    const [dark, light] = [await getThemeCookie("dark"), await getThemeCookie("light")];
    const themes = [];
    // Asked once, asked again (now kept), sent again.
    for (let round = 0; round < 3; round++)
      for (const cookie of [dark, light, undefined])
        themes.push(themeOf((await visit("/no-such-page?themed", cookie)).html));
    expect(themes).toEqual(Array(3).fill(["dark", "light", "system"]).flat());
  });

  it("is sent for each address its own, with that address in its forms", async () => {
    const first = await visit("/no-such-page/first");
    const second = await visit("/no-such-page/second");
    expect(first.html).toContain('value="/no-such-page/first"');
    expect(second.html).toContain('value="/no-such-page/second"');
    expect(second.html).not.toContain("/no-such-page/first");
  });

  it("prints the CPU one costs, rendered and sent again", async () => {
    const ROUNDS = 300;
    const measure = async (path: (i: number) => string) => {
      const before = readMainThreadCpuMs(server.child.pid!);
      const statuses = new Set<number>();
      for (let i = 0; i < ROUNDS; i++) statuses.add((await visit(path(i))).status);
      expect([...statuses]).toEqual([404]);
      return (readMainThreadCpuMs(server.child.pid!) - before) / ROUNDS;
    };
    // Each address its own document: each one rendered.
    const rendered = await measure((i) => `/no-such-page/rendered-${i}`);
    const sentAgain = await measure(() => "/no-such-page/again");
    console.log(
      `CPU per 404 document: ${rendered.toFixed(2)} ms rendered, ${sentAgain.toFixed(2)} ms sent again ` +
        `(${ROUNDS} of each, one after another)`,
    );
  });
});

describe("a storm of visitors on an API answering 503", () => {
  const VISITORS = 100;
  let api: Upstream;
  beforeAll(async () => {
    await buildReferenceApp();
    api = await startUpstream();
    api.handle((_req, res) => res.writeHead(503).end());
    return () => api.close();
  });
  const fixture = startSuiteServer(
    () => ({ API_BASE_URL: api.url, NODE_OPTIONS: LOOP_DELAY_OPTIONS }),
    { cwd: referenceAppBuild, expectedStatuses: [503] },
  );

  it("answers each its 503 page, the page rendered about once", async () => {
    await (await fetch(`${fixture.url}/call/1`)).arrayBuffer();
    await readLoopDelay(fixture);
    const timings: number[] = [];
    const statuses = new Set<number>();
    await Promise.all(
      Array.from({ length: VISITORS }, async () => {
        const started = performance.now();
        const response = await fetch(`${fixture.url}/call/1`);
        await response.arrayBuffer();
        statuses.add(response.status);
        timings.push(performance.now() - started);
      }),
    );
    const { maxMs } = await readLoopDelay(fixture);
    const sorted = timings.sort((a, b) => a - b);
    const at = (share: number) => Math.round(sorted[Math.floor(share * (sorted.length - 1))]!);
    console.log(
      `${VISITORS} visitors at once on /call/1, API answering 503: ` +
        `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms; loop delay max ${maxMs} ms`,
    );
    expect([...statuses]).toEqual([503]);
  });
});
