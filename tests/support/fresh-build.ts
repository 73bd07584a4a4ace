import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

// What `npm run build` reads, and what it writes (the server and Remix's build both).
const SOURCES = ["app", "server", "public", "patches"];
SOURCES.push("remix.config.js", "package.json", "package-lock.json");
const OUTPUTS = ["build/index.js", "build/server.js"];
const BROWSER_BUILD = path.join(root, "public/build");

/** The newest file under `file`, skipping the browser build inside public/. */
function newestFile(file: string): { file: string; mtimeMs: number } {
  const stats = statSync(file);
  if (!stats.isDirectory()) return { file, mtimeMs: stats.mtimeMs };
  let newest = { file, mtimeMs: 0 };
  for (const name of readdirSync(file)) {
    const child = path.join(file, name);
    if (child === BROWSER_BUILD) continue;
    const candidate = newestFile(child);
    if (candidate.mtimeMs > newest.mtimeMs) newest = candidate;
  }
  return newest;
}

function getBuildTime() {
  const times = OUTPUTS.map(
    (output) => statSync(path.join(root, output), { throwIfNoEntry: false })?.mtimeMs,
  );
  return times.some((time) => time === undefined) ? undefined : Math.min(...(times as number[]));
}

/**
 * Vitest's global setup for the suites that start the built server: `npm run build` first when
 * there is no build or a source is newer than it, saying so in one line. After `npm test`'s own
 * build it finds the build fresh and does nothing.
 */
export default function buildWhenStale() {
  const builtAt = getBuildTime();
  const newest = SOURCES.map((source) => newestFile(path.join(root, source))).reduce((a, b) =>
    b.mtimeMs > a.mtimeMs ? b : a,
  );
  if (builtAt !== undefined && newest.mtimeMs <= builtAt) return;
  const reason =
    builtAt === undefined
      ? "there is no build"
      : `${path.relative(root, newest.file)} is newer than the build`;
  console.log(`Building first (npm run build): ${reason}.`);
  // Vitest sets NODE_ENV=test, which would make a development build.
  const env = { ...process.env, NODE_ENV: "production" as const };
  execFileSync("npm", ["run", "build", "--silent"], {
    cwd: root,
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
}
