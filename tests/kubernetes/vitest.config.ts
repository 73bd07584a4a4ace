import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "../..");

// The manifests under kubernetes/, rendered and checked, and the built server run as they run it.
export default defineConfig({
  root,
  resolve: { alias: { "~": path.join(root, "app") } },
  test: {
    name: "kubernetes",
    include: ["tests/kubernetes/**/*.test.ts"],
    globalSetup: "tests/support/fresh-build.ts",
    env: { LOG_LEVEL: "silent" },
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
