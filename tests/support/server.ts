import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect } from "vitest";
import { HANG_TIMEOUT_MS } from "./hang";

export const projectRoot = path.resolve(import.meta.dirname, "../..");

/** A fixed secret so tests can start several instances that trust each other's cookies. */
export const TEST_SESSION_SECRET = "test-secret-that-is-at-least-32-characters-long";

export { HANG_TIMEOUT_MS };

/** A loopback port the system chose, listened on, for one server to take over (`startServer`). */
export type ReservedPort = {
  port: number;
  url: string;
  fd: number;
  close: () => void;
  /** How many connections this process accepted on it (and closed) so far. */
  accepted: () => number;
};

/** Listens on a port the system picks; the server started with it accepts on that very socket. */
export async function reservePort(): Promise<ReservedPort> {
  let accepted = 0;
  const listener = net.createServer((socket) => (accepted++, socket.destroy()));
  await new Promise<void>((resolve) => listener.listen({ port: 0, host: "127.0.0.1" }, resolve));
  const { port } = listener.address() as net.AddressInfo;
  const fd = (listener as unknown as { _handle: { fd: number } })._handle.fd;
  const close = () => void listener.close();
  return { port, url: `http://127.0.0.1:${port}`, fd, close, accepted: () => accepted };
}

export type ServerProcess = {
  child: ChildProcess;
  /** Everything the process has written to stdout and stderr so far. */
  output: () => string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code when the process exits by itself or is stopped. */
  exited: Promise<number | null>;
  /** Sends a signal and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

export type RunningServer = ServerProcess & {
  url: string;
  port: number;
  /** METRICS_PORT's port as the server reports it (set METRICS_PORT=0 to have one picked). */
  metricsPort?: number;
};

type Options = {
  cwd?: string;
  /**
   * The socket the server accepts on, handed over as systemd does (LISTEN_FDS, LISTEN_PID); one is
   * reserved if not given.
   */
  listener?: ReservedPort;
  /** What fd 3 is instead (a descriptor, or the IPC channel), LISTEN_* as `env` says. */
  fd3?: number | "ipc";
  /** Node's arguments, when the process to run is not the built server (a test fixture). */
  args?: string[];
  /** The program to run instead of the Node running the tests (the image's `CMD`). */
  command?: string;
  /** What `env` is added to, instead of the suites' settings (the image's own `ENV`). */
  baseEnv?: Env;
  /** Another user to run as (the image's unprivileged user). */
  user?: { uid?: number; gid?: number };
};

// A variable set to undefined is left out: the server runs without it. LISTEN_PID "self" is the
// server's own process id.
type Env = Record<string, string | undefined>;

function getSuiteEnv(): Env {
  return {
    NODE_ENV: "production",
    PATH: process.env.PATH,
    PORT: "0",
    HOST: "127.0.0.1",
    SESSION_SECRET: TEST_SESSION_SECRET,
    // Suites post many times from one address; the rate limit's own tests set a value.
    RATE_LIMIT_PER_MINUTE: "0",
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
  };
}

const HANDED_OVER = { LISTEN_FDS: "1", LISTEN_PID: "self" };

/**
 * Spawns the built production server (`node build/server.js`) on the Node running the tests.
 * `cwd` is where it finds the Remix build (`build/index.js`) and `public/`. The IPC channel
 * carries the server's readiness message.
 */
export function spawnServer(
  env: Env = {},
  {
    cwd = projectRoot,
    args = [path.join(projectRoot, "build/server.js")],
    command = process.execPath,
    baseEnv = getSuiteEnv(),
    user = {},
    listener,
    fd3 = listener?.fd,
  }: Options = {},
): ServerProcess {
  // The socket is fd 3 in the server, as a service manager hands it over; the parent's copy closes.
  const { LISTEN_PID, ...rest } = { ...baseEnv, ...env, ...(listener && HANDED_OVER) };
  // The shell's process id is the server's once it has exec'd it.
  const [program, argv] =
    LISTEN_PID === "self"
      ? ["/bin/sh", ["-c", 'export LISTEN_PID=$$; exec "$0" "$@"', command, ...args]]
      : [command, args];
  const child = spawn(program, argv, {
    cwd,
    env: { ...rest, ...(LISTEN_PID !== "self" && { LISTEN_PID }) } as NodeJS.ProcessEnv,
    stdio: [
      "ignore",
      "pipe",
      "pipe",
      ...(fd3 === "ipc" ? [] : [fd3 ?? "ignore"]),
      "ipc",
    ] as StdioOptions,
    uid: user.uid,
    gid: user.gid,
  });
  listener?.close();
  let stdout = "";
  let stderr = "";
  let output = "";
  child.stdout!.on("data", (chunk) => ((stdout += chunk), (output += chunk)));
  child.stderr!.on("data", (chunk) => ((stderr += chunk), (output += chunk)));
  // "close": exited, and everything it wrote has been read.
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  return {
    child,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Starts the built server on a port the system chose (`options.listener`, else one reserved here
 * unless `fd3` says what fd 3 is) and resolves once it says it is listening; `metricsPort` is METRICS_PORT's, read back.
 */
export async function startServer(env: Env = {}, options: Options = {}): Promise<RunningServer> {
  const listener =
    options.listener ?? (options.fd3 === undefined ? await reservePort() : undefined);
  const server = spawnServer(env, { ...options, listener });
  let metricsPort: number | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      void server.stop("SIGKILL");
      reject(new Error(`server did not start within ${HANG_TIMEOUT_MS} ms:\n${server.output()}`));
    }, HANG_TIMEOUT_MS);
    type Listening = { type?: string; port?: number; metricsPort?: number };
    server.child.on("message", (message: Listening) => {
      if (message.type !== "listening" || typeof message.port !== "number") return;
      metricsPort = message.metricsPort;
      // The message and the log line come down different pipes: wait for both, so that what a test
      // reads of the log from now on is about what it did.
      const { port } = message;
      const onLogged = () => {
        if (!server.stdout().includes('"msg":"listening')) return;
        server.child.stdout!.off("data", onLogged);
        clearTimeout(timer);
        resolve(port);
      };
      server.child.stdout!.on("data", onLogged);
      onLogged();
    });
    void server.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${server.output()}`));
    });
  });
  server.child.channel?.unref();
  return { ...server, url: `http://127.0.0.1:${port}`, port, metricsPort };
}

/** Runs the built server (or a fixture) and resolves when it exits by itself (start-up failures). */
export async function runServerUntilExit(env: Env, options: Options = {}) {
  const server = spawnServer(env, options);
  const timer = setTimeout(() => void server.stop("SIGKILL"), HANG_TIMEOUT_MS);
  const code = await server.exited;
  clearTimeout(timer);
  return { code, stdout: server.stdout(), stderr: server.stderr() };
}

/**
 * A built server for the enclosing `describe` (or file): started before its tests, and after
 * them checked for 5xx answers and error-level log lines, then stopped.
 */
export function startSuiteServer(
  env: Env | (() => Env) = {},
  { expectedStatuses = [], ...options }: Options & { expectedStatuses?: number[] } = {},
) {
  const server = {} as RunningServer;
  beforeAll(async () => {
    Object.assign(server, await startServer(typeof env === "function" ? env() : env, options));
  });
  afterAll(async () => {
    if (!server.child) return;
    try {
      expectNoServerErrors(server, expectedStatuses);
    } finally {
      await server.stop();
    }
  });
  return server;
}

/**
 * The lines the server has logged so far that contain every one of `texts`. A line may come after
 * the answer it belongs to: a test expecting one polls (`expect.poll`, `waitFor`).
 */
export function getLogLines(server: ServerProcess, ...texts: string[]) {
  return server
    .output()
    .split("\n")
    .filter((line) => texts.every((text) => line.includes(text)));
}

let logMarks = 0;

/**
 * Resolves once every line the server logged before this call has been read here: it asks for
 * /healthz under a request id of its own, and the log is one stream, in order.
 */
export async function untilLoggedSoFar(server: RunningServer) {
  const requestId = `log-mark-${++logMarks}`;
  const mark = await fetch(`${server.url}/healthz`, { headers: { "x-request-id": requestId } });
  await mark.arrayBuffer();
  await expect.poll(() => server.output()).toContain(`"requestId":"${requestId}"`);
}

/** The status of every request the server has logged so far. */
export function getLoggedStatuses(server: ServerProcess) {
  const lines = getLogLines(server, '"msg":"request"');
  return lines.map((line) => (JSON.parse(line) as { status: number }).status);
}

/**
 * No answer so far was a 5xx (other than the ones a suite provokes on purpose, such as an
 * upstream's 502), and nothing was logged at error level or above.
 */
export function expectNoServerErrors(server: ServerProcess, expectedStatuses: number[] = []) {
  const unexpected = getLoggedStatuses(server).filter(
    (s) => s >= 500 && !expectedStatuses.includes(s),
  );
  expect(unexpected).toEqual([]);
  expect(server.output()).not.toMatch(/"level":(50|60)/);
}

/**
 * Asks a server something over its IPC channel and resolves with the answer of the same `type`:
 * a script loaded into it with NODE_OPTIONS="--import …" answers (loop-delay.js, loaded-modules.js).
 */
export function askServer<Answer>(server: ServerProcess, type: string) {
  return new Promise<Answer>((resolve) => {
    const onMessage = (message: { type?: string }) => {
      if (message.type !== type) return;
      server.child.off("message", onMessage);
      resolve(message as Answer);
    };
    server.child.on("message", onMessage);
    server.child.send({ type });
  });
}

/** Resolves once `url` answers 2xx; throws `failed()`'s reason when it says it never will, or on a hang. */
export async function waitForAnswer(url: string, failed: () => string | undefined) {
  const giveUpAt = performance.now() + HANG_TIMEOUT_MS;
  for (;;) {
    // The answer is read whole: one left unread holds its connection, and the peer's behind it.
    const answered = await fetch(url).then(
      async (response) => (await response.arrayBuffer(), response.ok),
      () => false,
    );
    if (answered) return;
    const reason = failed() ?? (performance.now() > giveUpAt ? `${url} never answered` : undefined);
    if (reason) throw new Error(reason);
    await sleep(50);
  }
}

/**
 * Resolves once `condition` holds, asked every 20 ms; throws naming `what` if it never does.
 * For hooks, where `expect.poll` cannot run; a busy machine only makes it wait longer.
 */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = HANG_TIMEOUT_MS) {
  const giveUpAt = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > giveUpAt)
      throw new Error(`still waiting after ${timeoutMs} ms for ${what}`);
    await sleep(20);
  }
}
