// Loaded into a server under test (NODE_OPTIONS="--import …/loaded-modules.js") so a test can ask,
// over IPC, which CommonJS files the server has loaded (React picks its build by NODE_ENV).
import { createRequire } from "node:module";
import process from "node:process";

const require = createRequire(import.meta.url);

process.on("message", (message) => {
  if (message?.type !== "loaded-modules") return;
  process.send?.({ type: "loaded-modules", files: Object.keys(require.cache) });
});
