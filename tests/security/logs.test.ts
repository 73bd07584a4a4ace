import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { projectRoot, TEST_SESSION_SECRET } from "../support/server";

function runFixture() {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/security/fixtures/console-output.ts"], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, NODE_ENV: "production", SESSION_SECRET: TEST_SESSION_SECRET },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise<{ stdout: string; stderr: string }>((resolve) =>
    child.on("exit", () => resolve({ stdout, stderr })),
  );
}

it("sends console.*, process warnings and the logger's own lines out as JSON, long values cut", async () => {
  const { stdout, stderr } = await runFixture();
  expect(stderr).toBe("");
  const entries = stdout
    .trim()
    .split("\n")
    .map((line) => {
      expect(line.length).toBeLessThan(12_000);
      return JSON.parse(line) as { level: number; msg: string; source?: string };
    });
  expect(entries.map(({ level, source }) => [level, source])).toEqual([
    [30, "console"],
    [30, "console"],
    [40, "console"],
    [50, "console"],
    [30, undefined],
    [50, undefined],
    // Node emits warnings on the next tick.
    [40, "process"],
  ]);
  expect(entries[0]!.msg).toBe("plain message");
  expect(entries[2]!.msg).toMatch(/^Pathnames cannot .*… \(\d+ characters\)$/);
});
