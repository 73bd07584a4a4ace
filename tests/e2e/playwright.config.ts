import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";

const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(chromiumPath)) {
  throw new Error(
    `Chromium not found at ${chromiumPath}: install it (apt-get install -y chromium) or set CHROMIUM_PATH.`,
  );
}

export default defineConfig({
  testDir: ".",
  outputDir: "../../test-results",
  globalSetup: "./global-setup.ts",
  forbidOnly: true,
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 30_000,
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
    { name: "javascript-disabled", use: { javaScriptEnabled: false } },
  ],
});
