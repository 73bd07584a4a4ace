/**
 * Memory soak: at least 50,000 mixed requests (pages, 404s, form posts, health checks and
 * requests the client abandons mid-way) against the production server, reporting its RSS after
 * a warm-up and at the end. Target: growth <= 10 %, no errors.
 *
 * The heap grows lazily before it settles, so RSS is also sampled every 5,000 requests.
 *
 *   npm run bench:soak              (SOAK_WARMUP=10000, then SOAK_REQUESTS=50000; SOAK_CONCURRENCY=16)
 *
 * SOAK_NODE_OPTIONS is the server's NODE_OPTIONS: the heap limit the Kubernetes manifests set, say.
 */
import net from "node:net";
import { postThemeForm, productionServer, readRss, type Service } from "./processes";

const WARMUP = Number(process.env.SOAK_WARMUP ?? 10_000);
const TOTAL = WARMUP + Number(process.env.SOAK_REQUESTS ?? 50_000);
const SAMPLE_EVERY = 5_000;
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);

type Kind = "page" | "not-found" | "form-post" | "health" | "aborted";
const SHARES = { page: 3, "not-found": 2, "form-post": 2, health: 1, aborted: 2 };
const MIX = Object.entries(SHARES).flatMap(([kind, n]) => Array<Kind>(n).fill(kind as Kind));

async function send(service: Service, kind: Kind, i: number): Promise<boolean> {
  switch (kind) {
    case "page":
      return expectStatus(fetch(`${service.url}/`), 200);
    case "not-found":
      return expectStatus(fetch(`${service.url}/soak/${i}`), 404);
    case "health":
      return expectStatus(fetch(`${service.url}/healthz`), 200);
    case "form-post":
      return expectStatus(postThemeForm(service, ["system", "light", "dark"][i % 3]!), 303);
    case "aborted":
      return abandon(service.port);
  }
}

async function expectStatus(request: Promise<Response>, status: number) {
  const response = await request;
  await response.arrayBuffer();
  return response.status === status;
}

/** Sends a request and hangs up before reading the answer. */
function abandon(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      setTimeout(() => socket.destroy(), 1);
    });
    socket.on("error", () => {});
    socket.on("close", () => resolve(true));
  });
}

const nodeOptions = process.env.SOAK_NODE_OPTIONS;
const service = await productionServer({
  LOG_LEVEL: "info",
  ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
});
let sent = 0;
let errors = 0;
let rssAfterWarmup = 0;
const samples: number[] = [];
const counts = new Map<Kind, number>();
const started = performance.now();

async function worker() {
  while (sent < TOTAL) {
    const i = sent++;
    const kind = MIX[i % MIX.length]!;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    const ok = await send(service, kind, i).catch(() => false);
    if (!ok) errors++;
    if (i === WARMUP) rssAfterWarmup = readRss(service.child.pid!);
    if (i % SAMPLE_EVERY === 0) samples.push(readRss(service.child.pid!));
  }
}

try {
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  // Let the last aborted requests and timers settle before the final reading.
  await new Promise((r) => setTimeout(r, 1_000));
  const rssAtEnd = readRss(service.child.pid!);
  const seconds = (performance.now() - started) / 1000;
  const growth = (rssAtEnd / rssAfterWarmup - 1) * 100;
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  console.log(
    `requests: ${TOTAL} in ${seconds.toFixed(0)} s (${[...counts].map(([k, n]) => `${k} ${n}`).join(", ")})`,
  );
  console.log(`errors: ${errors}`);
  console.log(`RSS every ${SAMPLE_EVERY} requests (MB): ${samples.map(mb).join(", ")}`);
  console.log(
    `RSS after ${WARMUP} warm-up requests: ${mb(rssAfterWarmup)} MB; at the end: ${mb(rssAtEnd)} MB`,
  );
  console.log(`growth: ${growth.toFixed(1)} % (target <= 10 %)`);
  process.exitCode = errors === 0 && growth <= 10 ? 0 : 1;
} finally {
  await service.stop();
}
