import path from "node:path";
import { pathToFileURL } from "node:url";
import { readMainThreadCpuMs } from "./process-stats";
import { askServer, type RunningServer } from "./server";

/** NODE_OPTIONS for a server whose event loop delay a test reads (`readLoopDelay`). */
export const LOOP_DELAY_OPTIONS = `--import ${pathToFileURL(path.join(import.meta.dirname, "loop-delay.js")).href}`;

/** The server's event loop figures since the last reading (tests/support/loop-delay.js). */
export function readLoopDelay(server: RunningServer) {
  return askServer<{ maxMs: number; p99Ms: number; heldCpuMs: number }>(server, "loop-delay");
}

/**
 * Measures what hostile requests cost a server. Each is sent `rounds` times, twice a round:
 * - alone, reading the CPU time the server's main thread (the one running the event loop) spent
 *   meanwhile: no single stretch of the loop can have been longer. This is what tests assert:
 *   it does not depend on how busy the shared machine is. A server started with
 *   LOOP_DELAY_OPTIONS also reports its loop's longest delay over the same time.
 * - while a second connection asks /healthz back to back: the slowest /healthz is the delay a
 *   visitor saw (plus one /healthz's own few milliseconds, and whatever the machine's other
 *   processes took). It is printed, not asserted.
 */
export function createCostMeter(server: RunningServer, { rounds = 2, loopDelay = false } = {}) {
  const figures: string[] = [];
  const ms = (value: number) => `${String(Math.round(value)).padStart(5)} ms`;

  async function measure(name: string, send: () => Promise<number>) {
    let worstCpu = 0;
    let worstLoop = 0;
    let worstLatency = 0;
    const statuses = new Set<number>();
    for (let round = 0; round < rounds; round++) {
      if (loopDelay) await readLoopDelay(server);
      const cpuBefore = readMainThreadCpuMs(server.child.pid!);
      statuses.add(await send());
      worstCpu = Math.max(worstCpu, readMainThreadCpuMs(server.child.pid!) - cpuBefore);
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
    figures.push(
      `  ${name.padEnd(58)} ${ms(worstCpu)}  ${loop}${ms(worstLatency)}  ${[...statuses].join(", ")}`,
    );
    return { worstCpu, worstLoop, statuses: [...statuses] };
  }

  function print() {
    const loop = loopDelay ? "loop delay  " : "";
    const heading = `  ${"request".padEnd(58)} loop CPU  ${loop}/healthz  status`;
    console.log(`worst of ${rounds} rounds per hostile request:\n${heading}\n${figures.join("\n")}`);
  }

  return { measure, print };
}
