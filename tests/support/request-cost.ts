import path from "node:path";
import { pathToFileURL } from "node:url";
import { readMainThreadCpuMs } from "./process-stats";
import { askServer, type RunningServer } from "./server";

/** NODE_OPTIONS for a server whose event loop delay a test reads (`readLoopDelay`). */
export const LOOP_DELAY_OPTIONS = `--import ${pathToFileURL(path.join(import.meta.dirname, "loop-delay.js")).href}`;

type LoopDelay = { maxMs: number; p99Ms: number; heldCpuMs: number; referenceCpuMs: number };

/** The server's event loop figures since the last reading (tests/support/loop-delay.js). */
export function readLoopDelay(server: RunningServer) {
  return askServer<LoopDelay>(server, "loop-delay");
}

/** The longest stretch the loop was held, in parses of 1 MiB of JSON by the same process. */
export const heldInJsonParses = ({ heldCpuMs, referenceCpuMs }: LoopDelay) =>
  heldCpuMs / referenceCpuMs;

/** What costs are measured against: an ordinary post of one 1 MiB value to the theme form. */
export const ONE_LARGE_VALUE = `theme=dark&redirectTo=/${"x".repeat(1_048_576 - 30)}`;

/**
 * The most a hostile request may cost, in ordinary 1 MiB posts: the worst allowed one costs 3.5
 * of them on a quiet machine, 18 under a full `npm test`; each attack this guards against
 * (pipelining, 1-byte chunks, route discovery) 118 to 227.
 */
export const MAX_RELATIVE_COST = 40;

/**
 * Measures what hostile requests cost a server, as a multiple of what ONE_LARGE_VALUE posted
 * costs it in the same run (sent first: the median of five, after two to warm up), so a slower
 * or busier machine, which stretches both, changes no verdict. Each is sent `rounds` times,
 * twice a round:
 * - alone, reading the CPU time the server's main thread (the one running the event loop) spent
 *   meanwhile: no single stretch of the loop can have been longer. This is what tests assert.
 *   A server started with LOOP_DELAY_OPTIONS also reports its loop's longest delay.
 * - while a second connection asks /healthz back to back: the slowest /healthz is the delay a
 *   visitor saw (plus whatever the machine's other processes took). It is printed, not asserted.
 */
export function createCostMeter(server: RunningServer, { rounds = 2, loopDelay = false } = {}) {
  const figures: string[] = [];
  const ms = (value: number) => `${String(Math.round(value)).padStart(5)} ms`;
  const readCpu = () => readMainThreadCpuMs(server.child.pid!);
  let referenceCpu: Promise<number> | undefined;

  async function calibrate() {
    const runs: number[] = [];
    for (let run = 0; run < 7; run++) {
      const before = readCpu();
      await postForm(server, ONE_LARGE_VALUE);
      runs.push(readCpu() - before);
    }
    return runs.slice(2).sort((a, b) => a - b)[2]!;
  }

  async function measure(name: string, send: () => Promise<number>) {
    const unit = await (referenceCpu ??= calibrate());
    let worstCpu = 0;
    let worstLoop = 0;
    let worstLatency = 0;
    const statuses = new Set<number>();
    for (let round = 0; round < rounds; round++) {
      if (loopDelay) await readLoopDelay(server);
      const cpuBefore = readCpu();
      statuses.add(await send());
      worstCpu = Math.max(worstCpu, readCpu() - cpuBefore);
      if (loopDelay) {
        // The loop records a stretch when its next timer fires late: give it the chance first.
        await new Promise((resolve) => setTimeout(resolve, 20));
        worstLoop = Math.max(worstLoop, (await readLoopDelay(server)).maxMs);
      }

      let done = false;
      const sampler = (async () => {
        while (!done) {
          const start = performance.now();
          await (await fetch(`${server.url}/healthz`)).arrayBuffer();
          worstLatency = Math.max(worstLatency, performance.now() - start);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 10));
      statuses.add(await send().finally(() => (done = true)));
      await sampler;
    }
    const loop = loopDelay ? `${ms(worstLoop)}  ` : "";
    const relativeCost = worstCpu / unit;
    figures.push(
      `  ${name.padEnd(58)} ${ms(worstCpu)} ${relativeCost.toFixed(1).padStart(5)}×  ${loop}` +
        `${ms(worstLatency)}  ${[...statuses].join(", ")}`,
    );
    return { relativeCost, statuses: [...statuses] };
  }

  async function print() {
    const unit = referenceCpu && (await referenceCpu);
    const loop = loopDelay ? "loop delay  " : "";
    const heading = `  ${"request".padEnd(58)} loop CPU  ×ref.  ${loop}/healthz  status`;
    console.log(
      `worst of ${rounds} rounds per hostile request; ref. = a post of one 1 MiB value, ` +
        `${unit?.toFixed(1)} ms of loop CPU (median)\n${heading}\n${figures.join("\n")}`,
    );
  }

  return { measure, print };
}

/** Posts `body` as a form, to the theme form unless told; resolves with the status. */
export async function postForm(server: RunningServer, body: string, path = "/preferences/theme") {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}
