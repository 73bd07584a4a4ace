import os from "node:os";
import { defineConfig } from "@playwright/test";
import { HANG_TIMEOUT_MS } from "../support/hang";
import { requireSystemBinary } from "../toolchain/system-packages";

const chromiumPath = requireSystemBinary("chromium-headless-shell");

export default defineConfig({
  testDir: ".",
  outputDir: "../../test-results",
  globalSetup: "./global-setup.ts",
  forbidOnly: true,
  fullyParallel: true,
  workers: os.availableParallelism(),
  retries: 0,
  // Bounds that only catch a hang: a test that is slow on a busy machine is not a failing test.
  timeout: HANG_TIMEOUT_MS,
  expect: { timeout: HANG_TIMEOUT_MS },
  reporter: process.env.CI ? "list" : [["list"]],
  use: {
    launchOptions: {
      executablePath: chromiumPath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
    // Recording a trace costs every test CPU, and a run keeps none that passed: to see a failing
    // test's, run it again with `--trace on`.
    trace: "off",
  },
  projects: [
    { name: "javascript-enabled", use: { javaScriptEnabled: true } },
    {
      name: "javascript-disabled",
      use: { javaScriptEnabled: false },
      grepInvert: /@javascript-only/,
    },
  ],
});
