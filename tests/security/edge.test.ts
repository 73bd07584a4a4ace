import { describe, expect, it } from "vitest";
import { sendRaw } from "../support/raw-http";
import { hostileCases, titleOf } from "./hostile-requests";
import { expectNoServerErrors, getLoggedStatuses, startSuiteServer } from "../support/server";
import { getHeading, parseHtml } from "../support/html";

const server = startSuiteServer();

async function expectStillServing() {
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
}

const postForm = (body: string) =>
  fetch(server.url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });

describe("hostile requests", () => {
  it("has at least 40 cases", () => {
    expect(hostileCases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(hostileCases)("$name → $status", async ({ request, status, page, allow }) => {
    const response = await sendRaw(server.port, request(`127.0.0.1:${server.port}`));
    expect(response.status).toBe(status);
    if (allow) expect(response.headers.allow).toBe(allow);
    if (page) {
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.body).toMatch(/^<!DOCTYPE html>/);
      const document = parseHtml(response.body);
      expect(document.querySelector("h1")?.textContent).toBe(titleOf(page));
      expect(document.querySelector("main a")?.getAttribute("href")).toBe("/");
      expect(response.headers["content-security-policy"]).toContain("default-src");
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
    }
    await expectStillServing();
  });
});

describe("bodies", () => {
  it("cuts off a chunked body at the limit with 413", async () => {
    const chunk = `${(64 * 1024).toString(16)}\r\n${"a".repeat(64 * 1024)}\r\n`;
    const response = await sendRaw(
      server.port,
      [
        "POST /?index HTTP/1.1",
        `Host: 127.0.0.1:${server.port}`,
        "Content-Type: application/x-www-form-urlencoded",
        "Transfer-Encoding: chunked",
        "",
        chunk.repeat(20),
      ].join("\r\n"),
    );
    expect(response.status).toBe(413);
    expect(getHeading(response.body)).toBe(titleOf("PAYLOAD_TOO_LARGE"));
    await expectStillServing();
  });

  it("accepts a URL-encoded body just under the limit (Remix answers: no action here)", async () => {
    const response = await postForm(`a=${"b".repeat(1_048_576 - 2)}`);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });

  it("refuses a URL-encoded body one byte over the limit with 413", async () => {
    const response = await postForm(`a=${"b".repeat(1_048_576 - 1)}`);
    expect(response.status).toBe(413);
    await expectStillServing();
  });
});

describe("afterwards", () => {
  it("every request in this suite reached the log, and none was answered with a 5xx", async () => {
    await expect.poll(() => server.output()).toContain('"path":"/healthz"');
    expect(getLoggedStatuses(server).length).toBeGreaterThan(hostileCases.length);
    expectNoServerErrors(server);
  });
});
