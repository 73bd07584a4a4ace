import net from "node:net";
import { describe, expect, it } from "vitest";
import { startSuiteServer, untilLoggedSoFar } from "../support/server";

/** A step of a conversation: bytes to send, a pause in milliseconds, or how the client leaves. */
type Step = string | number | "hang up" | "reset";

/** Plays the steps on a fresh connection and resolves with whatever came back once it closes. */
function converse(port: number, steps: Step[]) {
  return new Promise<string>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => resolve(answer));
    void (async () => {
      for (const step of steps) {
        if (socket.destroyed) return;
        if (typeof step === "number") await new Promise((done) => setTimeout(done, step));
        else if (step === "hang up") socket.destroy();
        else if (step === "reset") socket.resetAndDestroy();
        else socket.write(step);
      }
    })();
  });
}

describe("a client's own faults", () => {
  // Short timeouts, so a slow client runs out of time quickly.
  const server = startSuiteServer({ REQUEST_TIMEOUT_MS: "1000", HEADERS_TIMEOUT_MS: "1000" });

  const head = (headers: string[]) =>
    [
      "POST /preferences/theme HTTP/1.1",
      `Host: 127.0.0.1:${server.port}`,
      "Content-Type: application/x-www-form-urlencoded",
      "Connection: close",
      ...headers,
      "",
      "",
    ].join("\r\n");

  const post =
    (header: string, ...steps: Step[]) =>
    () => [head([header]), ...steps];
  const cases: [string, () => Step[]][] = [
    ["hangs up mid-body", post("Content-Length: 100", "theme=", 100, "hang up")],
    ["resets the connection mid-body", post("Content-Length: 100", "theme=", 100, "reset")],
    ["hangs up mid-chunk", post("Transfer-Encoding: chunked", "a\r\ntheme", 100, "hang up")],
    [
      "sends a malformed chunk size",
      post("Transfer-Encoding: chunked", "zz\r\ntheme=dark\r\n0\r\n\r\n"),
    ],
    [
      "sends a chunk longer than it declared",
      post("Transfer-Encoding: chunked", "3\r\ntheme=dark\r\n0\r\n\r\n"),
    ],
    ["sends Transfer-Encoding: identity", post("Transfer-Encoding: identity", "theme=dark")],
    [
      "sends Transfer-Encoding: gzip, chunked",
      post("Transfer-Encoding: gzip, chunked", "0\r\n\r\n"),
    ],
    ["sends its body too slowly (request timeout)", post("Content-Length: 100", "theme=", 2_500)],
    ["sends its headers too slowly (headers timeout)", () => ["GET / HTTP/1.1\r\n", 2_500]],
    ["hangs up mid-headers", () => ["GET / HTTP/1.1\r\nHost: 127", 100, "hang up"]],
    ["sends garbage", () => ["\u0000\u0001 not http at all\r\n\r\n"]],
    [
      "leaves before its answer",
      () => [`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`, "reset"],
    ],
    [
      "keeps uploading after a refusal, then resets",
      post("Content-Length: 5000000", "a".repeat(65_536), 50, "a".repeat(65_536), "reset"),
    ],
  ];

  it.each(cases)(
    "%s: at most one line, below error level, without a stack",
    async (_name, steps) => {
      const before = server.output().length;
      await converse(server.port, steps());
      // The server has heard of the connection's end before it answers a request sent after it.
      await untilLoggedSoFar(server);
      const lines = server
        .output()
        .slice(before)
        .split("\n")
        .filter((line) => line && !line.includes('"path":"/healthz"'));
      expect(lines.length, lines.join("\n")).toBeLessThanOrEqual(1);
      for (const line of lines) {
        const entry = JSON.parse(line) as { level: number };
        expect(entry.level).toBeLessThan(50);
        expect(line).not.toContain("stack");
      }
    },
  );

  it("logged nothing at error level and no stack in the whole run", () => {
    expect(server.output()).not.toMatch(/"level":(50|60)/);
    expect(server.output()).not.toContain('"stack"');
  });
});
