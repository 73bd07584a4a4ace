import { describe, expect, it } from "vitest";
import { sendRaw } from "../support/raw-http";
import { expectNoServerErrors, startServer, startSuiteServer } from "../support/server";

const server = startSuiteServer();

function expectSecurityHeaders(headers: Headers) {
  const policy = headers.get("content-security-policy") ?? "";
  expect(policy).toMatch(/script-src 'nonce-[A-Za-z0-9+/]{22}==' 'strict-dynamic'/);
  for (const directive of [
    "default-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ])
    expect(policy).toContain(directive);
  expect(policy).not.toContain("upgrade-insecure-requests");
  expect(headers.get("content-security-policy-report-only")).toBeNull();
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  expect(headers.get("cross-origin-opener-policy")).toBe("same-origin");
  expect(headers.get("strict-transport-security")).toBeNull();
}

describe("security headers", () => {
  it.each([
    ["the home page", "GET", "/", 200],
    ["a 404 page", "GET", "/no/such/page", 404],
    ["a static file", "GET", "/favicon.svg", 200],
    ["a missing build asset", "GET", "/build/missing-ABC123.js", 404],
    ["the health check", "GET", "/healthz", 200],
    ["an edge refusal", "GET", "/?_data=root", 400],
    ["Remix's 405", "POST", "/", 405],
  ])("are on %s", async (_name, method, path, status) => {
    const response = await fetch(`${server.url}${path}`, { method });
    expect(response.status).toBe(status);
    expectSecurityHeaders(response.headers);
  });

  it("are on the answers Node gives before the app sees a request", async () => {
    const response = await sendRaw(server.port, "BREW / HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(response.status).toBe(400);
    expect(response.headers["content-security-policy"]).toContain("default-src 'none'");
    // Helmet's, as on every other answer.
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(response.headers["cross-origin-opener-policy"]).toBe("same-origin");
    expect(response.headers.connection).toBe("close");
  });

  it("use a fresh nonce per request, and every inline script carries it", async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(server.url);
      const nonce = /'nonce-([^']+)'/.exec(response.headers.get("content-security-policy")!)![1]!;
      nonces.add(nonce);
      const scripts = [...(await response.text()).matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag);
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    }
    expect(nonces.size).toBe(3);
  });
});

describe("with an https ORIGIN", () => {
  it("adds HSTS and upgrade-insecure-requests", async () => {
    const secure = await startServer({ ORIGIN: "https://app.example" });
    try {
      const { headers } = await fetch(secure.url);
      expect(headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
      expect(headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
    } finally {
      expectNoServerErrors(secure);
      await secure.stop();
    }
  });
});
