/**
 * CPU per request of the home page, as a browser asks for it, on this server against
 * `remix-serve` serving the same build (the same entry), in many short rounds:
 *
 *   (a)  this server, `node build/server.js`
 *   (b)  `remix-serve build/index.js`, the same build
 *   (b2) `remix-serve` again, in other processes: b2/b is the noise of the comparison (A/A)
 *   (r)  this server again, every request a reload of the page it has (If-None-Match: its tag,
 *        answered 304): r/a is what a 304 costs against a full render
 *   (a') with BENCH_EXTRA_ENV, this server again with those variables set, so a setting on
 *        and off run side by side: BENCH_EXTRA_ENV="METRICS_PORT=0" npm run bench
 *
 * Each round loads one process of every server at the same time (docs/performance.md says why),
 * without compression and with `Accept-Encoding: gzip, br`, and the comparison is the median of
 * the per-round ratios. Each server runs as BENCH_PROCESSES processes that take turns, and the
 * round's processes are loaded unmeasured right before (an idle one shrinks its heap).
 *
 *   npm run bench    with the defaults (docs/performance.md has how long it takes):
 *     BENCH_ROUNDS=40            rounds
 *     BENCH_SECONDS=2            measured seconds per series and round
 *     BENCH_REWARM_SECONDS=1     unmeasured load on a round's processes right before
 *     BENCH_CONNECTIONS=10       concurrent connections per server
 *     BENCH_PROCESSES=4          processes per server
 *     BENCH_WARM_UP_SECONDS=3    load on each process at start, per series
 *     BENCH_ROUND_TRIPS=200      sequential form post round trips per server
 *     BENCH_EXTRA_ENV=           "NAME=value NAME2=value2": adds row (a')
 */
import os from "node:os";
import { describeAnswer, formRoundTrips, load, SERIES } from "./load";
import { productionServer, remixServe, type Service } from "./processes";
import { LABEL_WIDTH, printComparisons, printRows, type Comparison, type Row } from "./report";

const setting = (name: string, fallback: number) =>
  Number(process.env[`BENCH_${name}`] ?? fallback);
const ROUNDS = setting("ROUNDS", 40);
const SECONDS = setting("SECONDS", 2);
const REWARM_SECONDS = setting("REWARM_SECONDS", 1);
const CONNECTIONS = setting("CONNECTIONS", 10);
const PROCESSES = setting("PROCESSES", 4);
const WARM_UP_SECONDS = setting("WARM_UP_SECONDS", 3);
const ROUND_TRIPS = setting("ROUND_TRIPS", 200);
const EXTRA_ENV = (process.env.BENCH_EXTRA_ENV ?? "").trim();

type Server = Row & { start: () => Promise<Service>; processes: Service[] };

function server(key: string, label: string, start: () => Promise<Service>): Server {
  const samples = new Map(SERIES.map((s) => [s.name, []]));
  return { key, label: `(${key}) ${label}`, start, processes: [], samples };
}

function parseEnv(text: string) {
  return Object.fromEntries(
    text.split(/\s+/).map((pair) => {
      const [name, ...value] = pair.split("=");
      if (!name || !value.length) throw new Error(`BENCH_EXTRA_ENV: "${pair}" is not NAME=value`);
      return [name, value.join("=")];
    }),
  );
}

/** This server, each request carrying the page's tag, as a browser reloading it sends it. */
async function reloads() {
  const service = await productionServer({}, "r");
  const tag = (await fetch(`${service.url}/`)).headers.get("etag");
  if (!tag) throw new Error("the home page has no ETag");
  return { ...service, headers: { "if-none-match": tag } };
}

const servers = [
  server("a", "this server", () => productionServer({}, "a")),
  server("r", "this server, reloads answered 304", reloads),
  server("b", "remix-serve, the same build", () => remixServe("b")),
  server("b2", "remix-serve, other processes (A/A)", () => remixServe("b2")),
];
if (EXTRA_ENV)
  servers.push(
    server("a'", `this server, ${EXTRA_ENV}`, () => productionServer(parseEnv(EXTRA_ENV), "a'")),
  );

const comparisons: Comparison[] = [
  { a: "a", b: "b", what: "this server / remix-serve" },
  { a: "a", b: "b2", what: "the same, against the other processes" },
  { a: "b2", b: "b", what: "A/A: remix-serve / itself" },
  { a: "r", b: "a", what: "a reload's 304 / a full render" },
  ...(EXTRA_ENV ? [{ a: "a'", b: "a", what: `with ${EXTRA_ENV} / without` }] : []),
];

const loadAverage = () => Array.from(os.loadavg(), (l) => l.toFixed(2)).join(" ");

async function main() {
  const cpu = os.cpus();
  console.log(
    `machine: ${cpu[0]?.model ?? "unknown cpu"}, ${cpu.length} cores, node ${process.version}, load ${loadAverage()}`,
  );
  console.log(
    `${ROUNDS} rounds × ${SECONDS} s per series, ${CONNECTIONS} connections per server, GET / as a browser, ` +
      `${servers.map((s) => s.key).join(", ")} at once; ${PROCESSES} processes per server, loaded ${REWARM_SECONDS} s before each round`,
  );

  const all: Service[] = [];
  try {
    // Interleaved, so no server gets all the early (or late) starters.
    for (let i = 0; i < PROCESSES; i++) {
      for (const s of servers) {
        const service = await s.start();
        all.push(service);
        s.processes.push(service);
      }
    }

    console.log(
      `\nthe home page as each server sends it (${SERIES.map((s) => s.name).join(" / ")}):`,
    );
    for (const s of servers) {
      const answers = await Promise.all(
        SERIES.map((series) => describeAnswer(s.processes[0]!, series)),
      );
      console.log(`${s.label.padEnd(LABEL_WIDTH)}${answers.join(" / ")}`);
    }

    for (let i = 0; i < PROCESSES; i++) {
      const round = servers.map((s) => s.processes[i]!);
      for (const series of SERIES) await load(round, series, WARM_UP_SECONDS, CONNECTIONS);
    }

    for (let round = 0; round < ROUNDS; round++) {
      const services = servers.map((s) => s.processes[round % s.processes.length]!);
      const series = round % 2 ? [...SERIES].reverse() : SERIES;
      await load(services, series[0]!, REWARM_SECONDS, CONNECTIONS);
      const line: string[] = [];
      for (const one of series) {
        const samples = await load(services, one, SECONDS, CONNECTIONS);
        servers.forEach((s, i) => s.samples.get(one.name)!.push(samples[i]!));
        line.push(
          `${one.name} ${samples.map((sample) => sample.cpuMsPerRequest.toFixed(3)).join(" ")}`,
        );
      }
      console.log(`round ${round + 1}: ${line.join("; ")} CPU ms/req, load ${loadAverage()}`);
    }

    printRows(servers);
    printComparisons(servers, comparisons);

    console.log(
      `\nform post round trip (POST, 303, GET), ${ROUND_TRIPS} sequential, after ${REWARM_SECONDS} s of load:`,
    );
    for (const s of servers.filter((s) => !["b2", "r"].includes(s.key))) {
      const service = s.processes[0]!;
      await load([service], SERIES[0], REWARM_SECONDS, CONNECTIONS);
      const trips = await formRoundTrips(service, ROUND_TRIPS);
      console.log(
        `${s.label.padEnd(LABEL_WIDTH)} median ${trips.median.toFixed(1)} ms, p95 ${trips.p95.toFixed(1)} ms, failures ${trips.failures}`,
      );
    }
    console.log(`\nload at the end: ${loadAverage()}`);
  } finally {
    await Promise.all(all.map((s) => s.stop()));
  }
}

await main();
