import net from "node:net";
import { describe, expect, it } from "vitest";
import { parseResponse, sendRaw } from "../support/raw-http";
import { startSuiteServer } from "../support/server";
import { titleOf } from "./hostile-requests";
import { getHeading } from "../support/html";

const server = startSuiteServer();

/** An open connection whose answer so far can be awaited until it contains some text. */
function connect() {
  const socket = net.connect(server.port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk) => (received += chunk.toString("latin1")));
  socket.on("error", () => {});
  const closed = new Promise((resolve) => socket.on("close", resolve));
  return {
    socket,
    received: () => received,
    closed,
    until: (text: string) => expect.poll(() => received).toContain(text),
  };
}

const themeHead = (headers: string[], version = "1.1") =>
  [
    `POST /preferences/theme HTTP/${version}`,
    `Host: 127.0.0.1:${server.port}`,
    "Connection: close",
    ...headers,
    "",
    "",
  ].join("\r\n");

const FORM_TYPE = "Content-Type: application/x-www-form-urlencoded";
const BODY = "theme=dark&redirectTo=%2F";
/** The head of a post of BODY to the theme form that waits for 100 Continue. */
const continueHead = (version?: string) =>
  themeHead([FORM_TYPE, `Content-Length: ${BODY.length}`, "Expect: 100-continue"], version);

describe("Expect: 100-continue", () => {
  it.each([
    ["from another site", ["Origin: https://evil.example", FORM_TYPE], 403],
    ["over the body limit", [FORM_TYPE, "Content-Length: 5000000"], 413],
    ["in a format not accepted", ["Content-Type: application/json"], 415],
  ])(
    "on a request %s gets the refusal, never 100 Continue first",
    async (_name, headers, status) => {
      const connection = connect();
      const length = headers.some((h) => h.startsWith("Content-Length"))
        ? []
        : ["Content-Length: 10"];
      connection.socket.write(themeHead([...headers, ...length, "Expect: 100-continue"]));
      await connection.closed;
      expect(connection.received()).not.toContain("100 Continue");
      expect(parseResponse(connection.received()).status).toBe(status);
    },
  );

  it("on an acceptable request gets 100 Continue, then the answer to the body it then sends", async () => {
    const connection = connect();
    connection.socket.write(continueHead());
    await connection.until("\r\n\r\n");
    expect(connection.received()).toBe("HTTP/1.1 100 Continue\r\n\r\n");
    connection.socket.write(BODY);
    await connection.closed;
    const answer = connection.received().slice("HTTP/1.1 100 Continue\r\n\r\n".length);
    expect(parseResponse(answer).status).toBe(303);
  });

  it("is ignored on HTTP/1.0, which has no 100 Continue", async () => {
    const response = await sendRaw(server.port, continueHead("1.0") + BODY);
    expect(response.raw).not.toContain("100 Continue");
    expect(response.status).toBe(303);
  });

  it("answers any other expectation with 417, the catalogue page and the security headers", async () => {
    const raw = await sendRaw(
      server.port,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nExpect: 202-accepted\r\nConnection: close\r\n\r\n`,
    );
    expect(raw.status).toBe(417);
    expect(getHeading(raw.body)).toBe(titleOf("EXPECTATION_FAILED"));
    expect(raw.headers["content-security-policy"]).toContain("script-src 'nonce-");
    expect(raw.headers["x-frame-options"]).toBe("DENY");
  });
});

describe("static files", () => {
  const getFavicon = (headers?: Record<string, string>) =>
    fetch(`${server.url}/favicon.svg`, { headers });

  it("answer a Range past the end with 416 and the file's length", async () => {
    const response = await getFavicon({ range: "bytes=99999-" });
    expect(response.status).toBe(416);
    expect(response.headers.get("content-range")).toMatch(/^bytes \*\/\d+$/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(getHeading(await response.text())).toBe(titleOf("RANGE_NOT_SATISFIABLE"));
  });

  it("answer an If-Match no version matches with 412", async () => {
    const response = await getFavicon({ "if-match": '"nope"' });
    expect(response.status).toBe(412);
    expect(getHeading(await response.text())).toBe(titleOf("PRECONDITION_FAILED"));
  });

  it("serve a matching If-Match and a Range within the file", async () => {
    const whole = await getFavicon();
    const matched = await getFavicon({
      "if-match": whole.headers.get("etag")!,
      range: "bytes=0-4",
    });
    expect(matched.status).toBe(206);
    expect(await matched.text()).toBe((await whole.text()).slice(0, 5));
  });

  it("mark a 404 under /build not cacheable, unlike the assets there", async () => {
    const response = await fetch(`${server.url}/build/missing-ABC123.js`);
    expect(response.status).toBe(404);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

describe("pipelining", () => {
  const request = (path: string) =>
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`;
  const countAnswers = (raw: string) => raw.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0;

  it("answers a few pipelined requests in order", async () => {
    const response = await sendRaw(
      server.port,
      request("/healthz").repeat(4) +
        request("/favicon.svg").replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"),
    );
    expect(countAnswers(response.raw)).toBe(5);
    expect(response.raw.trimEnd()).toMatch(/<\/svg>$/);
  });

  it("closes a connection with more than 16 requests unanswered, and keeps serving others", async () => {
    const before = server.output().length;
    const response = await sendRaw(server.port, request("/healthz").repeat(1_500));
    expect(countAnswers(response.raw)).toBeLessThanOrEqual(16);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const warnings = () =>
      server.output().slice(before).split("pipelining too many requests").length - 1;
    await expect.poll(warnings).toBe(1);
  });
});
