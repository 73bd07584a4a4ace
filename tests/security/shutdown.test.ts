import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { parseResponse, sendRaw } from "../support/raw-http";
import {
  expectNoServerErrors,
  getLogLines,
  spawnServer,
  startServer,
  type RunningServer,
  projectRoot,
  type ServerProcess,
} from "../support/server";

const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";

/** A keep-alive connection that has sent the head of a theme post and part of its body. */
async function startPost(server: { port: number }, firstPart: string, body: string) {
  const socket = net.connect(server.port, "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
  socket.on("error", () => {});
  const closed = new Promise((resolve) => socket.on("close", resolve));
  socket.write(
    [
      "POST /preferences/theme HTTP/1.1",
      `Host: 127.0.0.1:${server.port}`,
      "Content-Type: application/x-www-form-urlencoded",
      `Content-Length: ${body.length}`,
      "Expect: 100-continue",
      "",
      firstPart,
    ].join("\r\n"),
  );
  // In flight from here: the server has read the head and waits for the body.
  await expect.poll(() => answer).toBe(CONTINUE);
  return {
    finish: () => socket.write(body.slice(firstPart.length)),
    closed,
    answer: () => parseResponse(answer.slice(CONTINUE.length)),
  };
}

async function sigterm(server: RunningServer) {
  server.child.kill("SIGTERM");
  await expect.poll(() => server.output()).toContain("shutting down");
}

// A keep-alive timeout longer than the shutdown deadline: a server that waited for it after the
// last answer (as it once did) would exit at the deadline, with 1 and a warning.
const SLOW_ENV = { KEEP_ALIVE_TIMEOUT_MS: "120000", SHUTDOWN_TIMEOUT_MS: "60000" };

/** Runs `test` on the server `start` starts, which is killed after it whatever happens. */
async function withServer<S extends ServerProcess>(
  start: Promise<S>,
  test: (server: S) => unknown,
) {
  const server = await start;
  try {
    await test(server);
  } finally {
    await server.stop("SIGKILL");
  }
}

function expectExitedByItself(server: RunningServer, code: number | null) {
  expect(code).toBe(0);
  expect(server.output()).not.toContain("shutdown timeout");
  expectNoServerErrors(server);
}

it("answers requests in flight at SIGTERM with Connection: close, and exits with the last answer", async () => {
  await withServer(startServer(SLOW_ENV), async (server) => {
    const first = await startPost(server, "theme", "theme=dark");
    const second = await startPost(server, "theme=li", "theme=light");
    // An idle keep-alive connection from an earlier request must not hold the process either.
    const idle = await fetch(`${server.url}/healthz`, { headers: { connection: "keep-alive" } });
    expect(idle.status).toBe(200);
    await sigterm(server);
    first.finish();
    await first.closed;
    // Still there for the second, which it answers, then it exits.
    second.finish();
    const code = await server.exited;
    for (const post of [first, second]) {
      expect(post.answer().status).toBe(303);
      expect(post.answer().headers.connection).toBe("close");
    }
    expectExitedByItself(server, code);
  });
});

it("says Connection: close on every answer during the shutdown delay, kept-alive or new, while it serves", async () => {
  await withServer(startServer({ ...SLOW_ENV, SHUTDOWN_DELAY_MS: "60000" }), async (server) => {
    const kept = net.connect(server.port, "127.0.0.1");
    let received = "";
    kept.on("data", (chunk) => (received += chunk.toString("latin1")));
    const ask = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`;
    const answers = () => received.split(/(?=HTTP\/1\.1 )/).map(parseResponse);
    kept.write(ask);
    await expect.poll(() => answers()[0]?.headers.connection).toBe("keep-alive");
    await sigterm(server);
    kept.write(ask);
    await expect.poll(() => answers().length).toBe(2);
    expect(answers()[1]).toMatchObject({ status: 200, headers: { connection: "close" } });
    expect((await sendRaw(server.port, ask)).headers.connection).toBe("close");
  });
});

it("exits at once on SIGTERM when no request is in flight, idle keep-alive connections or not", async () => {
  await withServer(startServer(SLOW_ENV), async (server) => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    server.child.kill("SIGTERM");
    expectExitedByItself(server, await server.exited);
  });
});

const REPEATED = "shutting down already";

/** `npm start`, as a terminal runs it: the leader of a process group of its own (npm, then node). */
async function startWithNpm() {
  const npm = spawnServer(
    { HOME: process.env.HOME },
    { command: "setsid", args: ["npm", "start", "--ignore-scripts", "--silent"] },
  );
  const listening = () => /listening on http:\/\/localhost:(\d+)/.exec(npm.stdout())?.[1];
  await expect.poll(listening).toBeDefined();
  return { ...npm, port: Number(listening()) };
}

type Start = () => Promise<ServerProcess & { port: number }>;

it.each<[string, Start, (server: ServerProcess) => Promise<void>]>([
  [
    "`npm start` under Ctrl+C (SIGINT to its process group; npm passes its own on)",
    startWithNpm,
    async (npm) => void process.kill(-npm.child.pid!, "SIGINT"),
  ],
  [
    "a second SIGTERM during the shutdown delay, which is logged",
    () => startServer({ ...SLOW_ENV, SHUTDOWN_DELAY_MS: "1000" }),
    async (server) => {
      await sigterm(server as RunningServer);
      server.child.kill("SIGTERM");
      await expect.poll(() => getLogLines(server, REPEATED).length).toBe(1);
    },
  ],
])("%s: the upload in flight is answered, exit 0", async (_case, start, signal) => {
  await withServer(start(), async (server) => {
    const upload = await startPost(server, "theme", "theme=dark");
    await signal(server);
    upload.finish();
    await upload.closed;
    expect(upload.answer().status).toBe(303);
    expect(await server.exited).toBe(0);
    expectNoServerErrors(server);
  });
});

it("exits 1, saying so, when a request is still in flight at the shutdown deadline", async () => {
  await withServer(startServer({ SHUTDOWN_TIMEOUT_MS: "1000" }), async (server) => {
    await startPost(server, "theme", "theme=dark");
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(1);
    expect(getLogLines(server, "shutdown timeout: exiting")).toHaveLength(1);
  });
});

it.each(["app", "metrics"])(
  "exits 0 on SIGTERM with a connection to the %s port that never sent a byte (a browser's preconnect)",
  async (port) => {
    await withServer(startServer({ ...SLOW_ENV, METRICS_PORT: "0" }), async (server) => {
      const silent = net.connect(port === "app" ? server.port : server.metricsPort!, "127.0.0.1");
      silent.on("error", () => {});
      const closed = new Promise((resolve) => silent.once("close", resolve));
      await new Promise((resolve) => silent.once("connect", resolve));
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      await closed;
    });
  },
);

// `npm run dev` in a copy of the project's sources (its build must leave the app's alone): npm,
// `remix dev`, the `tsx server/dev.ts` it starts and their children are one process group here.
it.each(["SIGINT", "SIGTERM"] as const)(
  "npm run dev stops whole on %s: no process of it is left, and its port is free",
  async (signal) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "dev-stop-"));
    for (const file of ["app", "server", "package.json", "remix.config.js", "tsconfig.json"])
      cpSync(path.join(projectRoot, file), path.join(dir, file), { recursive: true });
    mkdirSync(path.join(dir, "public"));
    symlinkSync(path.join(projectRoot, "node_modules"), path.join(dir, "node_modules"));
    const env = { ...process.env, PORT: "0", LOG_LEVEL: "info", NODE_ENV: "development" as const };
    const npm = spawn("npm", ["run", "dev"], { cwd: dir, env, detached: true });
    let output = "";
    for (const stream of [npm.stdout, npm.stderr]) stream.on("data", (data) => (output += data));
    const running = () => {
      try {
        return process.kill(-npm.pid!, 0);
      } catch {
        return false;
      }
    };
    try {
      await expect.poll(() => /listening on http:\/\/localhost:(\d+)/.exec(output)).toBeTruthy();
      const port = Number(/listening on http:\/\/localhost:(\d+)/.exec(output)![1]);
      process.kill(npm.pid!, signal);
      await expect.poll(running).toBe(false);
      const free = net.createServer();
      await new Promise<void>((resolve, reject) =>
        free.once("error", reject).listen(port, resolve),
      );
      free.close();
    } finally {
      if (running()) process.kill(-npm.pid!, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
