import net from "node:net";
import { expect, it } from "vitest";
import { parseResponse } from "../support/raw-http";
import { expectNoServerErrors, startServer, type RunningServer } from "../support/server";

/** A keep-alive connection that has sent the head of a theme post and part of its body. */
function startPost(server: RunningServer, firstPart: string, body: string) {
  const socket = net.connect(server.port, "127.0.0.1");
  let answer = "";
  let answeredAt = 0;
  socket.on("data", (chunk) => {
    answer += chunk.toString("latin1");
    answeredAt ||= performance.now();
  });
  socket.on("error", () => {});
  const closed = new Promise((resolve) => socket.on("close", resolve));
  socket.write(
    [
      "POST /preferences/theme HTTP/1.1",
      `Host: 127.0.0.1:${server.port}`,
      "Content-Type: application/x-www-form-urlencoded",
      `Content-Length: ${body.length}`,
      "",
      firstPart,
    ].join("\r\n"),
  );
  return {
    finish: () => socket.write(body.slice(firstPart.length)),
    closed,
    answer: () => parseResponse(answer),
    answeredAt: () => answeredAt,
  };
}

async function sigterm(server: RunningServer) {
  server.child.kill("SIGTERM");
  await expect.poll(() => server.output()).toContain("shutting down");
}

// Before, the process waited for the keep-alive timeout after the last answer. Both it and the
// shutdown deadline are far beyond the bound, which a busy machine keeps.
const SLOW_ENV = { KEEP_ALIVE_TIMEOUT_MS: "60000", SHUTDOWN_TIMEOUT_MS: "60000" };
const EXIT_BOUND_MS = 20_000;

it("answers requests in flight at SIGTERM with Connection: close, and exits with the last answer", async () => {
  const server = await startServer(SLOW_ENV);
  try {
    const first = startPost(server, "theme", "theme=dark");
    const second = startPost(server, "theme=li", "theme=light");
    // An idle keep-alive connection from an earlier request must not hold the process either.
    const idle = await fetch(`${server.url}/healthz`, { headers: { connection: "keep-alive" } });
    expect(idle.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sigterm(server);
    first.finish();
    await first.closed;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.child.exitCode).toBeNull();
    second.finish();
    const code = await server.exited;
    const exitDelayMs = performance.now() - second.answeredAt();
    console.log(`exited ${Math.round(exitDelayMs)} ms after the last answer`);
    for (const post of [first, second]) {
      expect(post.answer().status).toBe(303);
      expect(post.answer().headers.connection).toBe("close");
    }
    expect(code).toBe(0);
    expect(exitDelayMs).toBeLessThan(EXIT_BOUND_MS);
    expectNoServerErrors(server);
  } finally {
    await server.stop("SIGKILL");
  }
});

it("exits at once on SIGTERM when no request is in flight, idle keep-alive connections or not", async () => {
  const server = await startServer(SLOW_ENV);
  try {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const start = performance.now();
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const exitMs = performance.now() - start;
    console.log(`exited ${Math.round(exitMs)} ms after SIGTERM`);
    expect(exitMs).toBeLessThan(EXIT_BOUND_MS);
  } finally {
    await server.stop("SIGKILL");
  }
});
