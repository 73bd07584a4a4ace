/**
 * Cold start: from spawning `node build/server.js` (not `npm start`, which adds npm's own
 * start-up) to the first 200 on the home page.
 *
 *   npm run bench:cold-start        (COLD_START_RUNS=7)
 */
import { spawn } from "node:child_process";
import { median, projectRoot, readPort, BENCH_SESSION_SECRET } from "./processes";

const RUNS = Number(process.env.COLD_START_RUNS ?? 7);

async function coldStart(): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, ["build/server.js"], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      SESSION_SECRET: BENCH_SESSION_SECRET,
    },
    stdio: ["ignore", "pipe", "ignore"],
  });
  try {
    const port = await readPort("server", child);
    child.stdout!.resume();
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${port}/`).then(
        (r) => r.arrayBuffer().then(() => r.status),
        () => 0,
      );
      if (status === 200) return performance.now() - start;
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}

const times: number[] = [];
for (let i = 0; i < RUNS; i++) times.push(await coldStart());
console.log(
  `cold start to first 200 (${RUNS} runs): ${times.map((t) => t.toFixed(0)).join(", ")} ms`,
);
console.log(
  `median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (target <= 1000 ms)`,
);
