import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot, TEST_SESSION_SECRET } from "../support/server";
import { getHeading } from "../support/html";

const INTERNAL_DETAIL = "database password rejected at /srv/app/internal/secret.server.ts:42";

let output = "";
let url = "";
let child: ChildProcessWithoutNullStreams;

beforeAll(async () => {
  child = spawn(
    process.execPath,
    ["--import", "tsx", "tests/security/fixtures/failing-server.ts", INTERNAL_DETAIL],
    {
      cwd: projectRoot,
      env: { PATH: process.env.PATH, NODE_ENV: "production", SESSION_SECRET: TEST_SESSION_SECRET },
    },
  );
  child.stderr.on("data", (chunk) => (output += chunk));
  const port = await new Promise<string>((resolve, reject) => {
    child.once("exit", () => reject(new Error(`server exited:\n${output}`)));
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const match = /"port":(\d+)/.exec(output);
      if (match) resolve(match[1]!);
    });
  });
  url = `http://127.0.0.1:${port}`;
});

afterAll(() => {
  child.kill();
});

describe("a 5xx in production", () => {
  it("shows the catalogue's generic message and nothing internal", async () => {
    const response = await fetch(url, { headers: { "x-request-id": "leak-check-1" } });
    expect(response.status).toBe(500);
    const html = await response.text();
    expect(getHeading(html)).toBe("Something went wrong");
    expect(html).not.toMatch(/password|\/srv\/|secret\.server|at [\w.]+ \(|node_modules/);
  });

  it("logs the details with the request id", async () => {
    await expect.poll(() => output).toContain(INTERNAL_DETAIL);
    const line = output.split("\n").find((l) => l.includes(INTERNAL_DETAIL))!;
    expect(JSON.parse(line)).toMatchObject({ level: 50, requestId: "leak-check-1" });
  });
});
