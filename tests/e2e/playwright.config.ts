import { defineConfig } from "@playwright/test";
import { requireSystemBinary } from "../toolchain/system-packages";

const chromiumPath = requireSystemBinary("chromium-headless-shell");

export default defineConfig({
  testDir: ".",
  outputDir: "../../test-results",
  globalSetup: "./global-setup.ts",
  forbidOnly: true,
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // Margins a shared, busy machine keeps: a test that is slow there is not a failing test.
  timeout: 60_000,
  expect: { timeout: 15_000 },
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
    trace: "retain-on-failure",
  },
  projects: [
    { name: "javascript-enabled", use: { javaScriptEnabled: true } },
    { name: "javascript-disabled", use: { javaScriptEnabled: false }, grepInvert: /@javascript-only/ },
  ],
});
