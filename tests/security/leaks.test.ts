import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getLogLines, startServer, type RunningServer } from "../support/server";
import { getHeading } from "../support/html";

const FAILING_SERVER = "tests/security/fixtures/failing-server.ts";
const INTERNAL_DETAIL = "database password rejected at /srv/app/internal/secret.server.ts:42";

// This server fails on purpose, so the suite's usual no-5xx check does not apply.
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({}, { args: ["--import", "tsx", FAILING_SERVER, INTERNAL_DETAIL] });
});

afterAll(async () => {
  await server.stop();
});

describe("a 5xx in production", () => {
  it("shows the catalogue's generic message and nothing internal", async () => {
    const response = await fetch(server.url, { headers: { "x-request-id": "leak-check-1" } });
    expect(response.status).toBe(500);
    const html = await response.text();
    expect(getHeading(html)).toBe("Something went wrong");
    expect(html).not.toMatch(/password|\/srv\/|secret\.server|at [\w.]+ \(|node_modules/);
  });

  it("logs the details with the request id", async () => {
    await expect.poll(() => server.output()).toContain(INTERNAL_DETAIL);
    const line = getLogLines(server, INTERNAL_DETAIL)[0]!;
    expect(JSON.parse(line)).toMatchObject({ level: 50, requestId: "leak-check-1" });
  });
});
