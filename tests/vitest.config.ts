import path from "node:path";
import { defineConfig } from "vitest/config";

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
  testTimeout: 60_000,
  hookTimeout: 120_000,
} as const;

export default defineConfig({
  root,
  resolve: { alias: { "~": path.join(root, "app") } },
  test: {
    // Server suites spend most of their time waiting on timers and sockets, not on the CPU.
    maxWorkers: 4,
    // What a test waits for comes, later on a busy machine: waiting longer costs a passing test nothing.
    expect: { poll: { timeout: 15_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.{ts,tsx}"],
          environment: "node",
          // Typing into a rendered form takes seconds on a busy machine.
          testTimeout: 30_000,
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
