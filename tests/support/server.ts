import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

export const projectRoot = path.resolve(import.meta.dirname, "../..");

/** A fixed secret so tests can start several instances that trust each other's cookies. */
export const TEST_SESSION_SECRET = "test-secret-that-is-at-least-32-characters-long";

export type RunningServer = {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process has written to stdout and stderr so far. */
  output: () => string;
  /** Resolves with the exit code when the process exits by itself or is stopped. */
  exited: Promise<number | null>;
  /** Sends a signal and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

/**
 * Starts the built production server (`node build/server.js`) on a free port. `cwd` is where it
 * finds the Remix build (`build/index.js`) and `public/`.
 */
export async function startServer(
  env: Record<string, string> = {},
  { cwd = projectRoot } = {},
): Promise<RunningServer> {
  const child = spawn(process.execPath, [path.join(projectRoot, "build/server.js")], {
    cwd,
    env: {
      NODE_ENV: "production",
      PATH: process.env.PATH,
      PORT: "0",
      HOST: "127.0.0.1",
      SESSION_SECRET: TEST_SESSION_SECRET,
      // Suites post many times from one address; the rate limit's own tests set a value.
      RATE_LIMIT_PER_MINUTE: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 15 s:\n${output}`)), 15_000);
    const onData = () => {
      const match = /"port":(\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off("data", onData);
      resolve(Number(match[1]));
    };
    child.stdout!.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    output: () => output,
    exited,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the built server with an environment and resolves when it exits (for start-up failures). */
export async function runServerUntilExit(env: Record<string, string>, timeoutMs = 10_000) {
  const server = spawn(process.execPath, ["build/server.js"], {
    cwd: projectRoot,
    env: { NODE_ENV: "production", PATH: process.env.PATH, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  server.stdout.on("data", (chunk) => (stdout += chunk));
  server.stderr.on("data", (chunk) => (stderr += chunk));
  const timer = setTimeout(() => server.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => server.once("exit", resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
