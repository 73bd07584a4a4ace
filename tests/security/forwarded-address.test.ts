import { describe, expect, it } from "vitest";
import { startSuiteServer, type RunningServer } from "../support/server";

// Behind a trusted proxy the write limit counts the forwarded client address however the proxy
// writes it; a value that is no address counts as the connection's. Nothing a client sends makes
// the limiter print.

const LIMIT = 10;
const form = new URLSearchParams({ theme: "dark", redirectTo: "/" }).toString();

/** The statuses of writes sent one after another with the forwarded values given. */
async function postEach(server: RunningServer, values: (string | undefined)[]) {
  const statuses = [];
  for (const forwardedFor of values) {
    const response = await fetch(`${server.url}/preferences/theme`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }),
      },
      body: form,
    });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

const refusedAfterLimit = (count: number) => [
  ...Array(LIMIT).fill(303),
  ...Array(count - LIMIT).fill(429),
];

describe("behind a trusted proxy", () => {
  const server = startSuiteServer({ TRUST_PROXY: "true", RATE_LIMIT_PER_MINUTE: String(LIMIT) });

  it("counts one client whose address comes with a different port each time", async () => {
    const values = Array.from({ length: 20 }, (_, i) => `198.51.100.9:${40_000 + i}`);
    expect(await postEach(server, values)).toEqual(refusedAfterLimit(20));
  });

  it("counts an address written plain, with a port, and IPv4-mapped as one client", async () => {
    const forms = [
      "198.51.100.10",
      "198.51.100.10:80",
      "::ffff:198.51.100.10",
      "[::ffff:198.51.100.10]:443",
    ];
    const values = Array.from({ length: 16 }, (_, i) => forms[i % forms.length]);
    expect(await postEach(server, values)).toEqual(refusedAfterLimit(16));
  });

  it("counts an IPv6 client by its /56, with or without brackets and port", async () => {
    const values = Array.from({ length: 14 }, (_, i) =>
      i % 2 ? `[2001:db8:0:${i}::1]:${1_000 + i}` : `2001:db8:0:${i}::${i + 1}`,
    );
    expect(await postEach(server, values)).toEqual(refusedAfterLimit(14));
  });

  it("counts writes whose forwarded value is no address as the connection's", async () => {
    const values = [
      "unknown",
      "_hidden",
      "198.51.100.999",
      "example.com:80",
      "",
      "[::1",
      "x".repeat(4_000),
    ];
    const statuses = await postEach(server, [...values, undefined, ...values]);
    expect(statuses).toEqual(refusedAfterLimit(15));
  });

  it("says nothing at error level and nothing from the limiter about what clients sent", () => {
    expect(server.output()).not.toMatch(/ERR_ERL|"level":50/);
  });
});
