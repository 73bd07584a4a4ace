/**
 * Requests per second and latency of the home page for three servers on the same build, in
 * alternating rounds: (a) the production server, (b) stock `remix-serve`, (c) `node:http`
 * serving the same bytes (the ceiling), plus (b2) stock again in other processes, so (b2)/(b)
 * shows the noise. Then a no-JavaScript form post round trip (POST, 303, GET) against (a) and (b).
 *
 * Two Node processes running the same code can differ by 10-30 % for their whole life on a shared
 * host, so each server runs as BENCH_PROCESSES processes and the rounds take turns between them;
 * many short rounds average out the host's swings over time.
 *
 *   npm run bench    (BENCH_ROUNDS=12, BENCH_SECONDS=3, BENCH_CONNECTIONS=10, BENCH_PROCESSES=3,
 *                     BENCH_WARM_UP_SECONDS=8)
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import {
  median,
  percentile,
  postThemeForm,
  productionServer,
  startService,
  stockServer,
  type Service,
} from "./processes";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 200);
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 3);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 8);

/** One server under test, run as one or more processes. */
type Server = { name: string; processes: Service[] };

type Sample = { rps: number; p50: number; p99: number; cpuMsPerRequest: number; errors: number };

/** CPU time the process has used (user + system), in ms, from /proc: unlike req/s, steady on a shared host. */
function cpuMs(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS_PER_SECOND);
}
const CLOCK_TICKS_PER_SECOND = 100;

async function load(service: Service, seconds: number): Promise<Sample> {
  const cpuBefore = cpuMs(service.child.pid!);
  const result = await autocannon({ url: `${service.url}/`, connections: CONNECTIONS, duration: seconds });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMsPerRequest: (cpuMs(service.child.pid!) - cpuBefore) / result.requests.total,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

async function startCeiling(bytes: Buffer, contentType: string): Promise<Service> {
  const file = path.join(os.tmpdir(), `bench-home-${process.pid}.html`);
  writeFileSync(file, bytes);
  const code = `
    const body = require("node:fs").readFileSync(process.env.BODY_FILE);
    require("node:http").createServer((req, res) => {
      res.writeHead(200, { "content-type": process.env.CONTENT_TYPE, "content-length": body.length });
      res.end(body);
    }).listen(Number(process.env.PORT), "127.0.0.1");`;
  return startService("node:http", ["--input-type=commonjs", "-e", code], {
    BODY_FILE: file,
    CONTENT_TYPE: contentType,
  });
}

/** POST the theme form as a browser without JavaScript does, follow the 303, GET the page. */
async function formRoundTrips(service: Service, count: number) {
  const times: number[] = [];
  let failures = 0;
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const post = await postThemeForm(service, i % 2 ? "dark" : "light");
    await post.arrayBuffer();
    const cookies = post.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const location = post.headers.get("location") ?? "/";
    const page = await fetch(new URL(location, service.url), { headers: { cookie: cookies } });
    await page.arrayBuffer();
    if (post.status !== 303 || page.status !== 200) failures++;
    times.push(performance.now() - start);
  }
  return { median: median(times), p95: percentile(times, 95), failures };
}

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(8);

async function main() {
  console.log(
    `machine: ${os.cpus()[0]?.model ?? "unknown cpu"}, ${os.cpus().length} cores, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  console.log(
    `${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, GET /; ${PROCESSES} processes per server, ` +
      `${WARM_UP_SECONDS} s warm-up each\n`,
  );

  const production: Server = { name: "production", processes: [] };
  const stock: Server = { name: "remix-serve", processes: [] };
  const stockAgain: Server = { name: "remix-serve #2", processes: [] };
  const all: Service[] = [];
  try {
    // Interleaved, so no server gets all the early (or late) starters.
    for (let i = 0; i < PROCESSES; i++) {
      for (const [server, start] of [
        [production, () => productionServer()],
        [stock, () => stockServer(stock.name)],
        [stockAgain, () => stockServer(stockAgain.name)],
      ] as const) {
        const service = await start();
        all.push(service);
        server.processes.push(service);
      }
    }
    const home = await fetch(`${stock.processes[0]!.url}/`);
    const ceilingService = await startCeiling(
      Buffer.from(await home.arrayBuffer()),
      home.headers.get("content-type")!,
    );
    all.push(ceilingService);
    const ceiling: Server = { name: "node:http", processes: [ceilingService] };
    const servers = [production, stock, ceiling, stockAgain];

    for (const service of all) await load(service, WARM_UP_SECONDS);

    const samples = new Map<string, Sample[]>(servers.map((s) => [s.name, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      // Rotate the order each round so no server always runs first or last.
      const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
      const line: string[] = [];
      for (const server of order) {
        const sample = await load(server.processes[round % server.processes.length]!, SECONDS);
        samples.get(server.name)!.push(sample);
        line.push(`${server.name} ${sample.rps.toFixed(0)}`);
      }
      console.log(`round ${round}: ${line.join(", ")} req/s`);
    }

    console.log(
      `\n${"server".padEnd(16)}${"req/s".padStart(8)}${"p50 ms".padStart(8)}${"p99 ms".padStart(8)}${"CPU ms/req".padStart(12)}${"errors".padStart(8)}`,
    );
    const medians = new Map<string, number>();
    const cpuMedians = new Map<string, number>();
    for (const server of servers) {
      const runs = samples.get(server.name)!;
      const rps = median(runs.map((r) => r.rps));
      medians.set(server.name, rps);
      const cpu = median(runs.map((r) => r.cpuMsPerRequest));
      cpuMedians.set(server.name, cpu);
      const errors = runs.reduce((sum, r) => sum + r.errors, 0);
      console.log(
        `${server.name.padEnd(16)}${fmt(rps)}${fmt(median(runs.map((r) => r.p50)), 1)}${fmt(median(runs.map((r) => r.p99)), 1)}${fmt(cpu, 3).padStart(12)}${fmt(errors)}`,
      );
    }
    const ratio = (a: string, b: string) => (medians.get(a)! / medians.get(b)!).toFixed(2);
    console.log(`\na/b  production / remix-serve:    ${ratio("production", "remix-serve")}`);
    console.log(`a/c  production / node:http:      ${ratio("production", "node:http")}`);
    console.log(`A/A  remix-serve #2 / remix-serve: ${ratio("remix-serve #2", "remix-serve")}`);
    // Both stock groups are stock: against all their samples, a/b rests on twice the processes.
    const allStock = [...samples.get("remix-serve")!, ...samples.get("remix-serve #2")!];
    const pooled = (pick: (s: Sample) => number) => median(allStock.map(pick));
    console.log(
      `a/b  production / every stock process (b and b2): ${(medians.get("production")! / pooled((s) => s.rps)).toFixed(2)}`,
    );
    // The same comparison in server CPU per request (stock's cost over ours: above 1 is cheaper).
    const cpuRatio = (a: string, b: string) => (cpuMedians.get(b)! / cpuMedians.get(a)!).toFixed(2);
    console.log(`\nby CPU per request (less noisy on a shared host):`);
    console.log(`a/b  production / remix-serve:    ${cpuRatio("production", "remix-serve")}`);
    console.log(`A/A  remix-serve #2 / remix-serve: ${cpuRatio("remix-serve #2", "remix-serve")}`);
    console.log(
      `a/b  production / every stock process (b and b2): ${(pooled((s) => s.cpuMsPerRequest) / cpuMedians.get("production")!).toFixed(2)}`,
    );

    console.log(`\nform post round trip (POST, 303, GET), ${ROUND_TRIPS} sequential:`);
    for (const server of [production, stock]) {
      const trips = await formRoundTrips(server.processes[0]!, ROUND_TRIPS);
      console.log(
        `${server.name.padEnd(16)} median ${trips.median.toFixed(1)} ms, p95 ${trips.p95.toFixed(1)} ms, failures ${trips.failures}`,
      );
    }
  } finally {
    await Promise.all(all.map((s) => s.stop()));
  }
}

await main();
