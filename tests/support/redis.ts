import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { requireSystemBinary } from "../toolchain/system-packages";
import { getFreePort } from "./ports";

export type RedisServer = {
  url: string;
  port: number;
  /** Stops the server (SIGTERM; it keeps nothing, so its counts are gone). */
  stop: () => Promise<void>;
  /** Starts it again on the same port, empty. */
  start: () => Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered. */
  pause: () => void;
  /** Lets a paused process go on (SIGCONT). */
  resume: () => void;
};

/** Debian's redis-server on a free loopback port, keeping nothing on disk; stop it after. */
export async function startRedis(): Promise<RedisServer> {
  const binary = requireSystemBinary("redis-server");
  const port = await getFreePort();
  let child: ChildProcess | undefined;
  let output = "";

  const start = async () => {
    output = "";
    const args = ["--save", "", "--appendonly", "no", "--port", String(port), "--bind", "127.0.0.1"];
    child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(port))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${output}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not answer within 10 s: ${output}`);
      await sleep(50);
    }
  };

  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGTERM");
    // A paused process acts on the signal once it runs again.
    running.kill("SIGCONT");
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    pause: () => void child?.kill("SIGSTOP"),
    resume: () => void child?.kill("SIGCONT"),
  };
}

function answersPing(port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.setTimeout(1_000, () => socket.destroy());
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      resolve(data.toString().startsWith("+PONG"));
      socket.destroy();
    });
    socket.once("error", () => resolve(false));
    socket.once("close", () => resolve(false));
  });
}
