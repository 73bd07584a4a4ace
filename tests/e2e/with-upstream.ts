import { HANG_TIMEOUT_MS } from "../support/hang";
import { projectRoot, startServer, type RunningServer } from "../support/server";
import { startUpstream, type Upstream } from "../support/upstream";
import { buildReferenceApp } from "../support/reference-app";
import { test as base, expect } from "./fixtures";

type WorkerFixtures = {
  /** What the worker's server runs: the app's own build (`npm run build`), or the fixture app. */
  build: "app" | "reference-app";
  /** The worker's production server and the scripted API its `API_BASE_URL` points at. */
  serverWithUpstream: { server: RunningServer; upstream: Upstream };
};

type TestFixtures = {
  /** The worker's scripted API; each test says how it answers (until then, 500 to everything). */
  upstream: Upstream;
};

/**
 * Browser tests for pages that make calls: each worker gets its own scripted API and a production
 * server wired to it, and pages open on that server (`page.goto("/things")`). A spec only
 * imports this `test`; nothing in the global setup changes. After each test, the server must
 * have logged nothing at error level.
 */
export const test = base.extend<TestFixtures, WorkerFixtures>({
  build: ["app", { scope: "worker", option: true }],
  serverWithUpstream: [
    async ({ build }, use) => {
      const cwd = build === "reference-app" ? await buildReferenceApp() : projectRoot;
      const upstream = await startUpstream();
      const env = { API_BASE_URL: upstream.url, API_TIMEOUT_MS: "10000", PSEUDO_LOCALES: "true" };
      const server = await startServer(env, { cwd });
      await use({ server, upstream });
      await server.stop();
      await upstream.close();
    },
    { scope: "worker", timeout: HANG_TIMEOUT_MS },
  ],
  baseURL: async ({ serverWithUpstream }, use) => {
    await use(serverWithUpstream.server.url);
  },
  upstream: [
    async ({ serverWithUpstream: { server, upstream } }, use) => {
      const logStart = server.output().length;
      upstream.handle((_req, res) => res.writeHead(500).end());
      await use(upstream);
      const errors = server
        .output()
        .slice(logStart)
        .split("\n")
        .filter((line) => /"level":(50|60)/.test(line));
      expect(errors).toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
