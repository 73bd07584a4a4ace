/**
 * Requests per second and CPU per request of the home page, as a browser asks for it, against
 * what a user would otherwise pick, in alternating rounds:
 *
 *   (a)  this server, `node build/server.js`
 *   (b)  the stock template: `remix-serve` on this app built with Remix's default entry
 *        (built into node_modules/.cache/bench-default-entry, see default-entry-build.ts)
 *   (b') `remix-serve` on this build, this build's entry
 *   (c)  `node:http` sending the same bytes, brotli'd once at start (the ceiling)
 *   (b2) the stock template again, in other processes: b2/b is the noise (A/A)
 *   (a') with BENCH_EXTRA_ENV, this server again with those variables set, so a setting on
 *        and off run side by side: BENCH_EXTRA_ENV="METRICS_PORT=0" npm run bench
 *
 * Every round measures each server twice, without compression and with `Accept-Encoding: gzip,
 * br`, under a browser's user-agent. Two processes of the same code can differ for their whole
 * life on a shared host, so each server runs as BENCH_PROCESSES processes and the rounds take
 * turns between them. A process left idle lets V8 shrink its heap and costs more CPU per request
 * afterwards, so each process is loaded for BENCH_REWARM_SECONDS,
 * unmeasured, right before it is measured. Then a form post round trip (POST, 303, GET).
 *
 *   npm run bench    with the defaults (docs/performance.md has how long it takes):
 *     BENCH_ROUNDS=6             rounds; each measures every server in both series
 *     BENCH_SECONDS=4            measured seconds per server, series and round
 *     BENCH_REWARM_SECONDS=2     unmeasured load on a process right before it is measured
 *     BENCH_CONNECTIONS=10       concurrent connections
 *     BENCH_PROCESSES=3          processes per server (the ceiling runs one)
 *     BENCH_WARM_UP_SECONDS=2    load on each process at start, per series
 *     BENCH_ROUND_TRIPS=200      sequential form post round trips per server
 *     BENCH_EXTRA_ENV=           "NAME=value NAME2=value2": adds row (a')
 */
import os from "node:os";
import { buildWithDefaultEntry, defaultEntryDirectory } from "./default-entry-build";
import { describeAnswer, formRoundTrips, load, SERIES, startCeiling } from "./load";
import { productionServer, remixServe, type Service } from "./processes";
import { LABEL_WIDTH, printComparisons, printRows, type Comparison, type Row } from "./report";

const setting = (name: string, fallback: number) => Number(process.env[`BENCH_${name}`] ?? fallback);
const ROUNDS = setting("ROUNDS", 6);
const SECONDS = setting("SECONDS", 4);
const REWARM_SECONDS = setting("REWARM_SECONDS", 2);
const CONNECTIONS = setting("CONNECTIONS", 10);
const PROCESSES = setting("PROCESSES", 3);
const WARM_UP_SECONDS = setting("WARM_UP_SECONDS", 2);
const ROUND_TRIPS = setting("ROUND_TRIPS", 200);
const EXTRA_ENV = (process.env.BENCH_EXTRA_ENV ?? "").trim();

type Server = Row & { start: () => Promise<Service>; processes: Service[] };

function server(key: string, label: string, start: () => Promise<Service>): Server {
  return {
    key,
    label: `(${key}) ${label}`,
    start,
    processes: [],
    samples: new Map(SERIES.map((s) => [s.name, []])),
  };
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

const servers = [
  server("a", "this server", () => productionServer({}, "a")),
  server("b", "stock template (remix-serve, default entry)", () => remixServe("b", defaultEntryDirectory)),
  server("b'", "remix-serve, this build's entry", () => remixServe("b'")),
  server("b2", "stock template, other processes (A/A)", () => remixServe("b2", defaultEntryDirectory)),
];
if (EXTRA_ENV)
  servers.push(server("a'", `this server, ${EXTRA_ENV}`, () => productionServer(parseEnv(EXTRA_ENV), "a'")));

const comparisons: Comparison[] = [
  { a: "a", b: "b", what: "this server / stock template" },
  { a: "b'", b: "b", what: "this build's entry / default entry, on remix-serve" },
  { a: "a", b: "b'", what: "this server / remix-serve, same build" },
  { a: "b2", b: "b", what: "A/A: stock template / itself, other processes" },
  { a: "a", b: "c", what: "this server / the ceiling" },
  ...(EXTRA_ENV ? [{ a: "a'", b: "a", what: `with ${EXTRA_ENV} / without` }] : []),
];

async function main() {
  const cpu = os.cpus();
  const loadAverage = os.loadavg().map((l) => l.toFixed(2));
  console.log(
    `machine: ${cpu[0]?.model ?? "unknown cpu"}, ${cpu.length} cores, node ${process.version}, load ${loadAverage.join(" ")}`,
  );
  console.log(
    `${ROUNDS} rounds × ${SECONDS} s per series, ${CONNECTIONS} connections, GET / as a browser; ` +
      `${PROCESSES} processes per server; each re-warmed ${REWARM_SECONDS} s right before it is measured`,
  );
  buildWithDefaultEntry();

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
    const ceiling = server("c", "node:http, the same bytes (ceiling)", () =>
      startCeiling(servers[0]!.processes[0]!),
    );
    ceiling.processes.push(await ceiling.start());
    all.push(ceiling.processes[0]!);
    const rows = [...servers, ceiling];

    console.log(`\nthe home page as each server sends it (${SERIES.map((s) => s.name).join(" / ")}):`);
    for (const s of rows) {
      const answers = await Promise.all(SERIES.map((series) => describeAnswer(s.processes[0]!, series)));
      console.log(`${s.label.padEnd(LABEL_WIDTH)}${answers.join(" / ")}`);
    }

    for (const service of all) {
      for (const series of SERIES) await load(service, series, WARM_UP_SECONDS, CONNECTIONS);
    }

    for (let round = 0; round < ROUNDS; round++) {
      // Rotate servers and series each round so none always runs first or last.
      const order = rows.map((_, i) => rows[(i + round) % rows.length]!);
      const series = round % 2 ? [...SERIES].reverse() : SERIES;
      const line: string[] = [];
      for (const s of order) {
        const service = s.processes[round % s.processes.length]!;
        await load(service, series[0]!, REWARM_SECONDS, CONNECTIONS);
        const measured = [];
        for (const one of series) {
          const sample = await load(service, one, SECONDS, CONNECTIONS);
          s.samples.get(one.name)!.push(sample);
          measured.push(`${one.name} ${sample.rps.toFixed(0)}`);
        }
        line.push(`${s.key} ${measured.join(", ")}`);
      }
      console.log(`round ${round + 1}: ${line.join("; ")} req/s`);
    }

    printRows(rows);
    printComparisons(rows, comparisons);

    console.log(
      `\nform post round trip (POST, 303, GET), ${ROUND_TRIPS} sequential, after ${REWARM_SECONDS} s of load:`,
    );
    for (const s of servers.filter((s) => s.key !== "b2")) {
      const service = s.processes[0]!;
      await load(service, SERIES[0], REWARM_SECONDS, CONNECTIONS);
      const trips = await formRoundTrips(service, ROUND_TRIPS);
      console.log(
        `${s.label.padEnd(LABEL_WIDTH)} median ${trips.median.toFixed(1)} ms, p95 ${trips.p95.toFixed(1)} ms, failures ${trips.failures}`,
      );
    }
  } finally {
    await Promise.all(all.map((s) => s.stop()));
  }
}

await main();
