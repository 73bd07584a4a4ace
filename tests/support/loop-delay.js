// Loaded into a server under test (NODE_OPTIONS="--import …/loop-delay.js") to measure its event
// loop from the inside; the test asks for the figures over IPC.
// - maxMs, p99Ms: the loop's delay (monitorEventLoopDelay), wall clock: it includes the time a
//   busy machine kept the process off the CPU, so tests print it.
// - heldCpuMs: the most CPU the main thread spent between two turns of a 2 ms timer, the longest
//   stretch the loop was held by work: unlike the delay, it does not grow with the machine's load.
// - referenceCpuMs: the CPU this process needs, at the time of the reading, to parse 1 MiB of JSON:
//   the median of five samples, each as many parses as take 20 ms of CPU, since a thread's CPU
//   clock is too coarse, and a busy machine too uneven, to time one parse. Tests assert heldCpuMs
//   as a multiple of it, so that a slower or busier machine, which stretches both, changes no
//   verdict.
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

const REFERENCE_JSON = buildReference();

function buildReference() {
  const items = [];
  let length = 2;
  for (let i = 0; length < 1_048_576; i++) {
    const item = JSON.stringify({ id: i, name: `item ${i}`, tags: ["a", "b"], ok: i % 2 === 0 });
    items.push(item);
    length += item.length + 1;
  }
  return `[${items.join(",")}]`;
}

function measureReference() {
  const samples = [];
  for (let sample = 0; sample < 5; sample++) {
    const before = readThreadCpuMs();
    let parses = 0;
    let spent = 0;
    do {
      JSON.parse(REFERENCE_JSON);
      parses++;
      spent = readThreadCpuMs() - before;
    } while (spent < 20);
    samples.push(spent / parses);
  }
  return samples.sort((a, b) => a - b)[2];
}

process.on("message", (message) => {
  if (message?.type !== "loop-delay") return;
  const toMs = (nanoseconds) => Math.round(nanoseconds / 1e5) / 10;
  const figures = {
    type: "loop-delay",
    maxMs: toMs(delay.max),
    p99Ms: toMs(delay.percentile(99)),
    heldCpuMs: Math.round(heldCpuMs * 10) / 10,
  };
  process.send?.({ ...figures, referenceCpuMs: Math.round(measureReference() * 100) / 100 });
  delay.reset();
  lastCpuMs = readThreadCpuMs();
  heldCpuMs = 0;
});
