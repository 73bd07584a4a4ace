import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";
import { HANG_TIMEOUT_MS } from "./support/hang";

const root = path.resolve(import.meta.dirname, "..");

// Suites that talk to the built server, which they build first when it is stale. LOG_LEVEL quiets
// the logger of modules the tests import themselves (the API client); the servers they start get
// their own environment.
const serverSuite = {
  globalSetup: "tests/support/fresh-build.ts",
  env: { LOG_LEVEL: "silent" },
  environment: "node",
  // Their files keep no state in the modules they share: loaded once per worker rather than once
  // per file, they cost a fifth less CPU, which a busy machine lacks.
  isolate: false,
  testTimeout: HANG_TIMEOUT_MS,
  hookTimeout: 2 * HANG_TIMEOUT_MS,
} as const;

export default defineConfig({
  root,
  resolve: { alias: { "~": path.join(root, "app") } },
  test: {
    // One file at a time per CPU this process may use: a small machine is not asked for more.
    maxWorkers: os.availableParallelism(),
    // What a test waits for comes, later on a busy machine: waiting longer costs a passing test
    // nothing. Every bound here only catches a hang.
    expect: { poll: { timeout: HANG_TIMEOUT_MS } },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.{ts,tsx}"],
          environment: "node",
          testTimeout: HANG_TIMEOUT_MS,
        },
      },
      {
        extends: true,
        test: { name: "http", include: ["tests/http/**/*.test.ts"], ...serverSuite },
      },
      {
        extends: true,
        test: { name: "security", include: ["tests/security/**/*.test.ts"], ...serverSuite },
      },
      {
        extends: true,
        test: { name: "kubernetes", include: ["tests/kubernetes/**/*.test.ts"], ...serverSuite },
      },
    ],
  },
});
