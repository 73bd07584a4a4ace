import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { requireSystemBinary } from "../toolchain/system-packages";
import { HANG_TIMEOUT_MS } from "./server";

export type Redis = {
  /** `unix:///…/redis.sock`: a socket of its own, so no port is ever chosen or taken by another. */
  url: string;
  socketPath: string;
  /** Stops the server (its counts go with it); `start` brings it back on the same socket. */
  stop: () => Promise<void>;
  start: (options?: StartOptions) => Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered; `resume` thaws it. */
  pause: () => void;
  resume: () => void;
  /** Resolves once the running server has loaded its data and answers commands. */
  loaded: () => Promise<void>;
  /** Whether the running server is still loading its data (it answers LOADING). */
  isLoading: () => boolean;
};

type StartOptions = {
  /**
   * Start from the dataset last saved into `dir` (SAVE), taking this long per key to load it:
   * `start` resolves as soon as loading begins, while every command is answered LOADING.
   */
  keyLoadDelayUs?: number;
};

// "The server is now ready to accept connections at <socket>"
const READY = "ready to accept connections";
const LOADING = "Loading RDB";

/**
 * Debian's redis-server on a Unix socket of its own (no TCP port). It keeps nothing on disk
 * unless given `dir`, where a SAVE writes its dataset and the next start loads it.
 */
export async function startRedis({ dir }: { dir?: string } = {}): Promise<Redis> {
  const binary = requireSystemBinary("redis-server");
  const socketDir = mkdtempSync(path.join(os.tmpdir(), "redis-"));
  // A server run as another user (the pods' test) reaches the socket too.
  chmodSync(socketDir, 0o755);
  const socketPath = path.join(socketDir, "redis.sock");
  let child: ChildProcess | undefined;
  let output = "";

  const waitFor = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const started = child!;
      const timer = setTimeout(
        () => done(new Error(`redis-server did not say "${line}": ${output}`)),
        HANG_TIMEOUT_MS,
      );
      const read = () => output.includes(line) && done();
      const exited = (code: number | null) =>
        done(new Error(`redis-server exited with ${code}: ${output}`));
      function done(error?: Error) {
        clearTimeout(timer);
        started.stdout!.off("data", read);
        started.stderr!.off("data", read);
        started.off("exit", exited);
        if (error) reject(error);
        else resolve();
      }
      started.stdout!.on("data", read);
      started.stderr!.on("data", read);
      started.once("exit", exited);
      read();
    });

  async function start({ keyLoadDelayUs }: StartOptions = {}) {
    const args = ["--port", "0", "--unixsocket", socketPath, "--unixsocketperm", "777"];
    args.push("--save", "", "--appendonly", "no");
    if (dir) args.push("--dir", dir);
    // Loading answers other clients only between chunks of this many bytes.
    const slowLoad = ["--key-load-delay", String(keyLoadDelayUs)];
    if (keyLoadDelayUs) args.push(...slowLoad, "--loading-process-events-interval-bytes", "1024");
    output = "";
    child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    const collect = (chunk: Buffer) => void (output += chunk);
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    await waitFor(keyLoadDelayUs ? LOADING : READY);
  }

  async function stop() {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  await start();
  return {
    url: `unix://${socketPath}`,
    socketPath,
    stop,
    start,
    pause: () => void child?.kill("SIGSTOP"),
    resume: () => void child?.kill("SIGCONT"),
    loaded: () => waitFor(READY),
    isLoading: () => output.includes(LOADING) && !output.includes(READY),
  };
}
