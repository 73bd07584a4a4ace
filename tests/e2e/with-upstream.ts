import { HANG_TIMEOUT_MS } from "../support/hang";
import { projectRoot, startServer, type RunningServer } from "../support/server";
import { startUpstream, type Upstream } from "../support/upstream";
import { buildReferenceApp } from "../support/reference-app";
import { test as base, expect } from "./fixtures";

type WorkerFixtures = {
  /** What the worker's server runs: the app's own build (`npm run build`), or the fixture app. */
  build: "app" | "reference-app";
  serverWithUpstream: { server: RunningServer; upstream: Upstream };
};

/**
 * Browser tests for pages that make calls: each worker gets a production server wired to its own
 * scripted API (`upstream`: 500 to everything until a test says how it answers). After each
 * test, the server must have logged nothing at error level.
 */
export const test = base.extend<{ upstream: Upstream }, WorkerFixtures>({
  build: ["app", { scope: "worker", option: true }],
  serverWithUpstream: [
    async ({ build }, use) => {
      const cwd = build === "reference-app" ? await buildReferenceApp() : projectRoot;
      const upstream = await startUpstream();
      const env = {
        API_BASE_URL: upstream.url,
        API_TIMEOUT_MS: "10000",
        PSEUDO_LOCALES: "true",
        TIME_ZONE: "Europe/Berlin", // a zone whose clocks change, for date-time fields
      };
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
      const lines = server.output().slice(logStart).split("\n");
      expect(lines.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
