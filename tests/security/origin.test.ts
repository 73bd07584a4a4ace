import { describe, expect, it } from "vitest";
import { sendRaw } from "../support/raw-http";
import { startSuiteServer } from "../support/server";
import { titleOf } from "./hostile-requests";
import { getHeading } from "../support/html";

const FORM = "application/x-www-form-urlencoded";

/** Hosts that pass a host-name pattern but make no URL, or a different one than was sent. */
const BAD_HOSTS = [
  "[:::::]",
  "localhost:65536",
  "localhost:99999",
  "999.999.999.999",
  "example.123",
  "xn--a",
  "127.1",
  "0x7f.0.0.1",
  "[0:0:0:0:0:0:0:1]",
  "localhost:080",
  "a..b",
];

function request(port: number, lines: string[], body = "") {
  return sendRaw(port, [...lines, "Connection: close", "", body].join("\r\n"));
}

const get = (port: number, host: string, path = "/") =>
  request(port, [`GET ${path} HTTP/1.1`, `Host: ${host}`]);

const getForwarded = (port: number, host: string) =>
  request(port, ["GET / HTTP/1.1", `Host: 127.0.0.1:${port}`, `X-Forwarded-Host: ${host}`]);

function post(port: number, headers: string[]) {
  const body = "a=1";
  return request(
    port,
    ["POST / HTTP/1.1", ...headers, `Content-Type: ${FORM}`, `Content-Length: ${body.length}`],
    body,
  );
}

describe("Host", () => {
  const server = startSuiteServer();

  it.each(BAD_HOSTS)(
    "%s → 400 with the catalogue page, and the value is not logged",
    async (host) => {
      const response = await get(server.port, host);
      expect(response.status).toBe(400);
      expect(getHeading(response.body)).toBe(titleOf("BAD_REQUEST"));
      expect(response.headers["content-security-policy"]).toContain("default-src");
      expect(server.output()).not.toContain(host);
    },
  );

  it.each(["localhost:3000", "LOCALHOST", "[::1]:8080", "app.example.", "app.example:80"])(
    "%s is served",
    async (host) => {
      expect((await get(server.port, host)).status).toBe(200);
    },
  );

  it("compares a write's Origin with the origin as a browser writes it (no default port, lower case)", async () => {
    const same = await post(server.port, ["Host: APP.example:80", "Origin: http://app.example"]);
    expect(same.status).toBe(405);
    const other = await post(server.port, [
      "Host: app.example:80",
      "Origin: http://app.example:8080",
    ]);
    expect(other.status).toBe(403);
  });
});

describe("X-Forwarded-Host behind a trusted proxy (TRUST_PROXY=true)", () => {
  const server = startSuiteServer({ TRUST_PROXY: "true" });

  it.each(BAD_HOSTS)("%s → 400", async (host) => {
    expect((await getForwarded(server.port, host)).status).toBe(400);
    expect(server.output()).not.toContain(host);
  });

  it("takes the first of several forwarded hosts", async () => {
    const response = await post(server.port, [
      `Host: 127.0.0.1:${server.port}`,
      "X-Forwarded-Host: app.example, evil.example",
      "X-Forwarded-Proto: https",
      "Origin: https://app.example",
    ]);
    expect(response.status).toBe(405);
  });
});

describe("with ORIGIN set", () => {
  const server = startSuiteServer({ ORIGIN: "https://app.example" });

  it.each([
    ["its host", "app.example", 200],
    ["its host with the scheme's default port", "app.example:443", 200],
    ["another port", "app.example:8443", 400],
    ["the address the server listens on", "127.0.0.1", 400],
    ["another host", "evil.example", 400],
  ])("answers pages for %s (%s) with %i", async (_name, host, status) => {
    expect((await get(server.port, host)).status).toBe(status);
  });

  it("refuses a write for another host even when its Origin matches that host (DNS rebinding)", async () => {
    const response = await post(server.port, ["Host: evil.example", "Origin: http://evil.example"]);
    expect(response.status).toBe(400);
    expect(getHeading(response.body)).toBe(titleOf("BAD_REQUEST"));
  });

  it("accepts writes from its origin and refuses others", async () => {
    const own = await post(server.port, ["Host: app.example", "Origin: https://app.example"]);
    expect(own.status).toBe(405);
    expect(own.headers.allow).toBe("GET, HEAD");
    const listening = await post(server.port, ["Host: app.example", `Origin: ${server.url}`]);
    expect(listening.status).toBe(403);
  });

  it.each(["/healthz", "/readyz"])(
    "answers the probe %s for any well-formed Host",
    async (path) => {
      for (const host of [`127.0.0.1:${server.port}`, "10.0.0.5:3000", "evil.example"])
        expect((await get(server.port, host, path)).status).toBe(200);
      expect((await get(server.port, "localhost:65536", path)).status).toBe(400);
    },
  );
});

describe("with ORIGIN set, behind a trusted proxy", () => {
  const server = startSuiteServer({ ORIGIN: "https://app.example", TRUST_PROXY: "true" });

  it("judges the host the proxy reports", async () => {
    expect((await getForwarded(server.port, "app.example")).status).toBe(200);
    expect((await getForwarded(server.port, "evil.example")).status).toBe(400);
  });
});
