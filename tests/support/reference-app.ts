import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect } from "vitest";
import type { ErrorCode } from "~/lib/errors";
import { getEnglishError } from "./shell";
import { parseHtml } from "./html";
import { projectRoot, startSuiteServer } from "./server";
import { createThingsApi } from "./things-api";
import { startUpstream, type Upstream } from "./upstream";

const fixtureApp = path.join(projectRoot, "tests/fixtures/reference-app");

/**
 * The reference app's root, and the working directory of a server that serves it: the app with
 * the "things" feature (tests/fixtures/reference-app/app) copied over it, as a project that adds
 * those files would be, and the failure tests' routes (tests/support/fault-routes).
 */
export const referenceAppBuild = path.join(projectRoot, "node_modules/.cache/reference-app");

// Everything the fixture build is made from; a change to any of it rebuilds.
const SOURCES = [
  "app",
  "public",
  "tests/fixtures/reference-app",
  "tests/support/fault-routes",
  "remix.config.js",
  "tsconfig.json",
  "package-lock.json",
  "patches",
  "server/static/precompress.ts",
];
const appBrowserBuild = path.join(projectRoot, "public/build");
const stampFile = path.join(referenceAppBuild, "source-hash");
const lockDir = `${referenceAppBuild}.lock`;
const lockOwner = path.join(lockDir, "pid");
const bin = path.join(projectRoot, "node_modules/.bin");
const run = promisify(execFile);

/**
 * Builds the fixture app unless the build on disk was made from the same sources. Suites and
 * browser workers running at once build it once: the first takes a lock, the others wait for it.
 */
export async function buildReferenceApp(): Promise<string> {
  const hash = hashSources();
  for (;;) {
    if (readFileOrNull(stampFile) === hash) return referenceAppBuild;
    if (takeLock()) break;
    await sleep(200);
  }
  try {
    if (readFileOrNull(stampFile) !== hash) {
      assembleReferenceApp();
      const env = { ...process.env, NODE_ENV: "production" as const };
      await run(path.join(bin, "remix"), ["build"], { cwd: referenceAppBuild, env });
      // As `npm run build` does for the app: each text file with its compressed copies.
      const precompress = path.join(projectRoot, "server/static/precompress.ts");
      await run(path.join(bin, "tsx"), [precompress, path.join(referenceAppBuild, "public/build")]);
      // The app's own public files (the favicon) beside the fixture's browser build.
      cpSync(path.join(projectRoot, "public"), path.join(referenceAppBuild, "public"), {
        recursive: true,
        filter: (source) => source !== appBrowserBuild,
      });
      writeFileSync(stampFile, hash);
    }
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
  return referenceAppBuild;
}

// `~/` then resolves to the merged app/ and Remix treats every route as part of the app.
function assembleReferenceApp() {
  const app = path.join(referenceAppBuild, "app");
  rmSync(app, { recursive: true, force: true });
  cpSync(path.join(projectRoot, "app"), app, { recursive: true });
  // Added beside the app's files, never over one: the feature is what a project would add.
  const besideApp = { recursive: true, force: false, errorOnExist: true };
  cpSync(path.join(fixtureApp, "app"), app, besideApp);
  const faultRoutes = path.join(projectRoot, "tests/support/fault-routes");
  cpSync(faultRoutes, path.join(app, "fault-routes"), besideApp);
  cpSync(path.join(fixtureApp, "package.json"), path.join(referenceAppBuild, "package.json"));
  const config = pathToFileURL(path.join(fixtureApp, "remix.config.js")).href;
  writeFileSync(
    path.join(referenceAppBuild, "remix.config.js"),
    `export { default } from ${JSON.stringify(config)};\n`,
  );
  const tsconfig = {
    compilerOptions: { jsx: "react-jsx", baseUrl: ".", paths: { "~/*": ["./app/*"] } },
  };
  writeFileSync(path.join(referenceAppBuild, "tsconfig.json"), JSON.stringify(tsconfig));
}

function hashSources() {
  const hash = createHash("sha256");
  const visit = (file: string) => {
    if (file === appBrowserBuild) return;
    if (statSync(file).isDirectory()) {
      for (const name of readdirSync(file).sort()) visit(path.join(file, name));
    } else {
      hash.update(`${path.relative(projectRoot, file)}\0`).update(readFileSync(file));
      hash.update("\0");
    }
  };
  for (const source of SOURCES) visit(path.join(projectRoot, source));
  return hash.digest("hex");
}

function readFileOrNull(file: string) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

function takeLock() {
  try {
    mkdirSync(path.dirname(lockDir), { recursive: true });
    mkdirSync(lockDir);
    writeFileSync(lockOwner, String(process.pid));
    return true;
  } catch {
    // A lock whose process is gone was left by a run killed mid-build; a live one is waited for,
    // however long a build takes on a busy machine.
    const owner = Number(readFileOrNull(lockOwner));
    try {
      if (owner > 0) process.kill(owner, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH")
        rmSync(lockDir, { recursive: true, force: true });
    }
    return false;
  }
}

/** The catalogue's page for `code`, inside the site's layout, with nothing internal in it. */
export async function expectCataloguePage(response: Response, code: ErrorCode) {
  const { status, title, message } = getEnglishError(code);
  expect(response.status).toBe(status);
  const html = await response.text();
  const page = parseHtml(html);
  expect(page.querySelector("header.site-header")).not.toBeNull();
  expect(page.querySelector("main h1")?.textContent).toBe(title);
  expect(html).toContain(message);
  expect(html).not.toMatch(/at .+\.js:\d+|ECONN|Error:/);
}

/**
 * For a suite that only reads and posts: the fixture app's production server against one things
 * API, fresh for the suite, both started in its `beforeAll`; `getUpstream()` gives what it got.
 */
export function startReferenceAppServer() {
  let upstream: Upstream;
  beforeAll(async () => {
    await buildReferenceApp();
    upstream = await startUpstream();
    upstream.handle(createThingsApi().handle);
  });
  afterAll(() => upstream?.close());
  const server = startSuiteServer(() => ({ API_BASE_URL: upstream.url }), {
    cwd: referenceAppBuild,
  });
  return { server, getUpstream: () => upstream };
}
