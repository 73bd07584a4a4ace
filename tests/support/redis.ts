import { spawn, type ChildProcess } from "node:child_process";
import { requireSystemBinary } from "../toolchain/system-packages";
import { getFreePort } from "./ports";

export type Redis = {
  url: string;
  /** Stops the server (its counts go with it); `start` brings it back on the same port. */
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered; `resume` thaws it. */
  pause: () => void;
  resume: () => void;
};

/** Debian's redis-server on a free loopback port, keeping nothing on disk. */
export async function startRedis(): Promise<Redis> {
  const binary = requireSystemBinary("redis-server");
  const port = await getFreePort();
  let child: ChildProcess | undefined;

  async function start() {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    const started = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
      const read = (chunk: Buffer) => {
        output += chunk;
        if (!output.includes("Ready to accept connections")) return;
        clearTimeout(timer);
        resolve();
      };
      started.stdout!.on("data", read);
      started.stderr!.on("data", read);
      started.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${output}`));
      });
    });
  }

  async function stop() {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    pause: () => void child?.kill("SIGSTOP"),
    resume: () => void child?.kill("SIGCONT"),
  };
}
