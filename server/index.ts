import { createRequire } from "node:module";
import path from "node:path";
import { ConfigError, getConfig } from "~/lib/config.server";
import { findMissingFixes } from "../patches/apply-patches.js";

// A bad setting stops the process with one line, before anything else loads.
try {
  process.env.NODE_ENV = getConfig().NODE_ENV;
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

// The framework fixes the app carries, in the packages its build loads (docs/security.md).
const missingFixes = findMissingFixes(createRequire(path.resolve("build/index.js")));
if (missingFixes.length > 0) {
  process.stderr.write(
    `The fixes for ${missingFixes.join(", ")} are missing from node_modules (installed without ` +
      "scripts?): run node patches/apply-patches.js, as npm install and npm run build do\n",
  );
  process.exit(1);
}

await import("./process/main");
