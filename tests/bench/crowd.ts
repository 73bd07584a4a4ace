/**
 * How many page renders arriving at the same instant one instance takes before `/healthz`
 * answers slower than a probe waits. The reference app's list page, which calls its API (a
 * healthy one, in this process), is asked for by N clients at once, each on a connection of its
 * own, while `/healthz` is asked one request after another; each round prints the slowest
 * `/healthz` and the slowest page. The figure is the largest crowd whose slowest `/healthz` stays
 * under the liveness probe's timeout (docs/kubernetes.md).
 *
 *   npm run bench:crowd    (CROWD_SIZES=50,100,200,400,800,1600; CROWD_ROUNDS=5; CROWD_PROBE_MS=5000)
 *
 * CROWD_NODE_OPTIONS is the server's NODE_OPTIONS (the manifests' heap limit, say).
 */
import http from "node:http";
import path from "node:path";
import { buildReferenceApp } from "../support/reference-app";
import { createThingsApi } from "../support/things-api";
import { startUpstream } from "../support/upstream";
import { cpuMs } from "./load";
import { BENCH_SESSION_SECRET, median, projectRoot, startService, type Service } from "./processes";

const SIZES = (process.env.CROWD_SIZES ?? "50,100,200,400,800,1600").split(",").map(Number);
const ROUNDS = Number(process.env.CROWD_ROUNDS ?? 5);
const PROBE_MS = Number(process.env.CROWD_PROBE_MS ?? 5_000);

/** One GET on a connection of its own: its status and how long until its answer was read. */
function get(url: string) {
  const started = performance.now();
  return new Promise<{ status: number; ms: number }>((resolve) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }),
      );
    });
    request.on("error", () => resolve({ status: 0, ms: performance.now() - started }));
  });
}

/** `size` pages asked for at once while `/healthz` is asked one after another. */
async function crowd(service: Service, size: number) {
  let crowding = true;
  const probes: number[] = [];
  const prober = (async () => {
    while (crowding) probes.push((await get(`${service.url}/healthz`)).ms);
  })();
  const cpuBefore = cpuMs(service.child.pid!);
  const pages = await Promise.all(Array.from({ length: size }, () => get(`${service.url}/things`)));
  const cpu = cpuMs(service.child.pid!) - cpuBefore;
  crowding = false;
  await prober;
  return {
    slowestProbe: Math.max(...probes),
    slowestPage: Math.max(...pages.map((page) => page.ms)),
    cpuPerPage: cpu / size,
    failed: pages.filter((page) => page.status !== 200).map((page) => page.status),
  };
}

const api = await startUpstream();
api.handle(createThingsApi().handle);
const service = await startService(
  "reference app",
  [path.join(projectRoot, "build/server.js")],
  {
    SESSION_SECRET: BENCH_SESSION_SECRET,
    RATE_LIMIT_PER_MINUTE: "0",
    API_BASE_URL: api.url,
    LOG_LEVEL: "warn",
    ...(process.env.CROWD_NODE_OPTIONS ? { NODE_OPTIONS: process.env.CROWD_NODE_OPTIONS } : {}),
  },
  { readyPath: "/things", cwd: await buildReferenceApp() },
);
try {
  // Warm up: the first renders compile what later ones reuse.
  await crowd(service, 50);
  console.log("crowd  slowest /healthz: median, max  slowest page  CPU per page  not 200");
  // The largest crowd that, like every smaller one, kept /healthz under the probe's wait.
  let taken = 0;
  let held = true;
  const cpuPerPage: number[] = [];
  for (const size of SIZES) {
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) rounds.push(await crowd(service, size));
    const probe = rounds.map((result) => result.slowestProbe);
    const page = rounds.map((result) => result.slowestPage);
    const failed = rounds.flatMap((result) => result.failed);
    cpuPerPage.push(...rounds.map((result) => result.cpuPerPage));
    const ms = (value: number) => `${Math.round(value)} ms`;
    console.log(
      `${String(size).padStart(5)}  ${`${ms(median(probe))}, ${ms(Math.max(...probe))}`.padEnd(28)}` +
        `${ms(Math.max(...page)).padEnd(14)}${median(rounds.map((r) => r.cpuPerPage))
          .toFixed(2)
          .padEnd(14)}` +
        `${failed.length ? `${failed.length} (${[...new Set(failed)].join(", ")})` : 0}`,
    );
    held &&= Math.max(...probe) < PROBE_MS && failed.length === 0;
    if (held) taken = size;
  }
  // A render holds the one thread its CPU time; /healthz waits behind every render queued first.
  const perPage = median(cpuPerPage);
  console.log(
    `\nlargest crowd here with every /healthz under ${PROBE_MS} ms: ${taken} renders at once`,
  );
  console.log(
    `CPU per page ${perPage.toFixed(2)} ms (all threads): a core of its own holds /healthz ${PROBE_MS} ms ` +
      `behind about ${Math.floor(PROBE_MS / perPage)} renders at once`,
  );
} finally {
  await service.stop();
  await api.close();
}
