import os from "node:os";
import { defineConfig } from "@playwright/test";
import { HANG_TIMEOUT_MS } from "../support/hang";
import { requireSystemBinary } from "../toolchain/system-packages";

const chromiumPath = requireSystemBinary("chromium-headless-shell");
const CHECK_TIMEOUT_MS = 60_000;

export default defineConfig({
  testDir: ".",
  outputDir: "../../test-results",
  globalSetup: "./global-setup.ts",
  forbidOnly: true,
  fullyParallel: true,
  workers: os.availableParallelism(),
  retries: 0,
  // A check or an action fails in a minute, several times the slowest wait of a passing run on a
  // slow machine (docs/testing.md); a hang is bounded on each test, each server's start and the run.
  globalTimeout: 24 * HANG_TIMEOUT_MS,
  timeout: HANG_TIMEOUT_MS,
  expect: { timeout: CHECK_TIMEOUT_MS },
  reporter: process.env.CI ? "list" : [["list"]],
  use: {
    actionTimeout: CHECK_TIMEOUT_MS,
    navigationTimeout: CHECK_TIMEOUT_MS,
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
