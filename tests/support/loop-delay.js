// Loaded into a server under test (NODE_OPTIONS="--import …/loop-delay.js") to measure its event
// loop from the inside; the test asks for the figures over IPC.
// - maxMs, p99Ms: the loop's delay (monitorEventLoopDelay), wall clock: it includes the time a
//   busy machine kept the process off the CPU, so tests print it.
// - heldCpuMs: the most CPU the main thread spent between two turns of a 2 ms timer, the longest
//   stretch the loop was held by work: the same on a busy machine as on a quiet one, so tests
//   assert it.
import { readFileSync } from "node:fs";
import { setInterval } from "node:timers";
import { monitorEventLoopDelay } from "node:perf_hooks";
import process from "node:process";

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();

const readThreadCpuMs = process.threadCpuUsage
  ? () => {
      const { user, system } = process.threadCpuUsage();
      return (user + system) / 1000;
    }
  : () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;

let lastCpuMs = readThreadCpuMs();
let heldCpuMs = 0;
setInterval(() => {
  const cpuMs = readThreadCpuMs();
  heldCpuMs = Math.max(heldCpuMs, cpuMs - lastCpuMs);
  lastCpuMs = cpuMs;
}, 2).unref();

process.on("message", (message) => {
  if (message?.type !== "loop-delay") return;
  const toMs = (nanoseconds) => Math.round(nanoseconds / 1e5) / 10;
  process.send?.({
    type: "loop-delay",
    maxMs: toMs(delay.max),
    p99Ms: toMs(delay.percentile(99)),
    heldCpuMs: Math.round(heldCpuMs * 10) / 10,
  });
  delay.reset();
  lastCpuMs = readThreadCpuMs();
  heldCpuMs = 0;
});
