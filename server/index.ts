import { createRequire } from "node:module";
import path from "node:path";
import { findMissingFixes } from "../patches/apply-patches.js";

// React and Remix choose their production or development code by NODE_ENV as they load.
process.env.NODE_ENV ||= "production";

// The framework fixes the app carries, in the packages its build loads (docs/security.md): checked
// before the build loads them.
const missingFixes = findMissingFixes(createRequire(path.resolve("build/index.js")));
if (missingFixes.length > 0) {
  process.stderr.write(
    `The fixes for ${missingFixes.join(", ")} are missing from node_modules (installed without ` +
      "scripts?): run node patches/apply-patches.js, as npm install and npm run build do\n",
  );
  process.exit(1);
}

const { startServer } = await import("./process/main");
await startServer();
