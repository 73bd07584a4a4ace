// Loaded into a server under test (NODE_OPTIONS="--import …/loop-delay.js") to measure its event
// loop from the inside with monitorEventLoopDelay; the test asks for the figures over IPC.
import { monitorEventLoopDelay } from "node:perf_hooks";
import process from "node:process";

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();

process.on("message", (message) => {
  if (message?.type !== "loop-delay") return;
  const toMs = (nanoseconds) => Math.round(nanoseconds / 1e5) / 10;
  process.send?.({ type: "loop-delay", maxMs: toMs(delay.max), p99Ms: toMs(delay.percentile(99)) });
  delay.reset();
});
