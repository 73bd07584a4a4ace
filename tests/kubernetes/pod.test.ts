import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IDeployment } from "kubernetes-models/apps/v1";
import { APP_NAME } from "~/lib/constants";
import { getEnv, readDockerfile } from "../support/dockerfile";
import { startOpenIdProvider, type OpenIdProvider } from "../support/oidc-provider";
import { startRedis, type Redis } from "../support/redis";
import {
  expectNoServerErrors,
  HANG_TIMEOUT_MS,
  projectRoot,
  startServer,
  TEST_SESSION_SECRET,
  type RunningServer,
} from "../support/server";
import { startUpstream, type Upstream } from "../support/upstream";
import {
  findObject,
  getConfigMapData,
  getContainer,
  getContainerEnv,
  overlays,
  renderOverlay,
  type KubernetesObject,
} from "./manifests";

const isRoot = process.getuid?.() === 0;

// `argv` as the pod runs it: read-only root, as `uid`. Run by a user other than root, a user
// namespace makes the mount possible, and the process keeps that user's own uid.
function runAsThePod(argv: string[], uid: number) {
  const readOnlyRoot = ["sh", "-c", 'mount -o remount,bind,ro / && exec "$@"', "sh"];
  const asUser = ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
  const args = isRoot
    ? ["--mount", "--propagation", "private", ...readOnlyRoot, ...asUser, ...argv]
    : ["--user", "--map-root-user", "--mount", ...readOnlyRoot, ...argv];
  return { command: "unshare", args };
}

// The pod's /app and its Node, hard-linked (copied across file systems) into a folder any user
// can read: the checkout may be private to its owner, and the pod's user must reach its files.
function stageApp() {
  const app = mkdtempSync(path.join(os.tmpdir(), "pod-app-"));
  chmodSync(app, 0o755);
  const entries = ["package.json", "node_modules", "build", "public"];
  for (const entry of [...entries, "node"]) {
    const from = entry === "node" ? process.execPath : path.join(projectRoot, entry);
    const to = path.join(app, entry);
    if (spawnSync("cp", ["-al", from, to]).status !== 0) {
      rmSync(to, { recursive: true, force: true });
      cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    }
  }
  return app;
}

function getImageEnv(): Record<string, string> {
  const lines = readDockerfile()
    .at(-1)!
    .instructions.filter((line) => line.keyword === "ENV");
  return Object.assign({}, ...lines.map((line) => getEnv(line.args)));
}

describe.each(overlays)(
  "the built server with the %s overlay's environment, as its pod runs it",
  (overlay) => {
    let redis: Redis;
    let upstream: Upstream;
    let provider: OpenIdProvider;
    let objects: KubernetesObject[];
    let pod: NonNullable<IDeployment["spec"]>["template"];
    let server: RunningServer;
    // What the ingress controller adds to every request it forwards.
    let forwarded: Record<string, string>;
    let app: string;

    beforeAll(async () => {
      const origin = getConfigMapData(renderOverlay(overlay)).ORIGIN!;
      forwarded = { "x-forwarded-host": new URL(origin).host, "x-forwarded-proto": "https" };
      [redis, upstream, provider] = await Promise.all([
        startRedis(),
        startUpstream(),
        startOpenIdProvider({ appOrigins: [origin] }),
      ]);
      // The API's health path and the trace collector both answer 200.
      upstream.handle((_req, res) => res.writeHead(200).end());
      objects = renderOverlay(overlay, {
        SESSION_SECRET: TEST_SESSION_SECRET,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        SESSION_REDIS_URL: redis.url,
        RATE_LIMIT_REDIS_URL: redis.url,
      });
      pod = findObject<IDeployment>(objects, "Deployment").spec!.template;
      app = stageApp();
      const argv = [path.join(app, "node"), "build/server.js"];
      server = await startServer(
        {
          ...getContainerEnv(objects),
          // What changes here: ports the system picks (the app's is handed over), the peers on loopback.
          HOST: "127.0.0.1",
          METRICS_PORT: "0",
          API_BASE_URL: upstream.url,
          OIDC_ISSUER: provider.issuer,
          OTEL_EXPORTER_OTLP_ENDPOINT: upstream.url,
        },
        {
          ...runAsThePod(argv, pod.spec!.securityContext!.runAsUser!),
          cwd: app,
          // HOME is the image's `node` user's, which it cannot write either.
          baseEnv: { ...getImageEnv(), PATH: process.env.PATH, HOME: "/home/node" },
        },
      );
    }, HANG_TIMEOUT_MS);

    afterAll(async () => {
      try {
        // The readiness probe's 503 while sessions connect is the only 5xx expected.
        if (server) expectNoServerErrors(server, [503]);
      } finally {
        await Promise.all([server?.stop(), redis?.stop(), upstream?.close(), provider?.close()]);
        if (app) rmSync(app, { recursive: true, force: true });
      }
    });

    it("runs as the manifests' user, on a root file system it cannot write", () => {
      const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)![1]);
      expect(uid).not.toBe(0);
      if (isRoot) expect(uid).toBe(pod.spec!.securityContext!.runAsUser);
      const mounts = readFileSync(`/proc/${server.child.pid}/mountinfo`, "utf8").split("\n");
      const root = mounts.map((line) => line.split(" ")).find((fields) => fields[4] === "/");
      expect(root?.[5]?.split(",")).toContain("ro");
    });

    it("answers each probe's path on the port it names", async () => {
      // Ready once its session store has connected, as the readiness probe would find it.
      await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status).toBe(200);
      const { startupProbe, livenessProbe, readinessProbe, ports } = getContainer(objects);
      for (const probe of [startupProbe, livenessProbe, readinessProbe]) {
        const { path, port } = probe!.httpGet!;
        const named = ports!.find((candidate) => candidate.name === port);
        expect(named?.containerPort).toBe(Number(getConfigMapData(objects).PORT));
        expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
      }
    });

    it("serves the home page and its scripts as the ingress controller forwards them", async () => {
      const page = await fetch(`${server.url}/`, { headers: forwarded });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(`<h1 translate="no">${APP_NAME}</h1>`);
      const script = /"(\/build\/[^"]+\.js)"/.exec(html)![1];
      expect((await fetch(`${server.url}${script}`, { headers: forwarded })).status).toBe(200);
    });

    it("reaches its peers from the Secret and the ConfigMap: Redis for the write limit, the provider for sign-in", async () => {
      await expect.poll(() => server.output()).toContain("rate limit: counting in Redis");
      const response = await fetch(`${server.url}/auth/sign-in`, {
        headers: forwarded,
        redirect: "manual",
      });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")?.startsWith(provider.issuer)).toBe(true);
    });

    it("serves metrics where the pod's annotations send Prometheus", async () => {
      const response = await fetch(
        `http://127.0.0.1:${server.metricsPort}${pod.metadata!.annotations!["prometheus.io/path"]}`,
      );
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("http_request_duration_seconds");
    });
  },
);
