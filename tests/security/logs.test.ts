import { expect, it } from "vitest";
import { runServerUntilExit } from "../support/server";

it("sends console.*, process warnings and the logger's own lines out as JSON, long values cut", async () => {
  const args = ["--import", "tsx", "tests/security/fixtures/console-output.ts"];
  const { stdout, stderr } = await runServerUntilExit({}, { args });
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
