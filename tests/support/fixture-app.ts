import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import { errorCatalogue, type ErrorCode } from "~/lib/errors";
import { projectRoot } from "./server";

// The app plus routes whose loaders and actions make fixture calls (tests/fixtures/upstream-app),
// built apart so the shipped app declares no calls; served by the real server, like the app itself.
const fixtureApp = path.join(projectRoot, "tests/fixtures/upstream-app");
export const fixtureBuild = path.join(projectRoot, "node_modules/.cache/upstream-app");
const builtServer = path.join(fixtureBuild, "build/index.js");
const lock = path.join(projectRoot, "node_modules/.cache/upstream-app.lock");
const LOCK_STALE_MS = 120_000;

/**
 * Builds the fixture app unless its build is newer than every source it is made of. Suites in
 * parallel workers call it at once: one builds, under a lock, and the others then find it fresh.
 */
export async function buildFixtureApp() {
  await withLock(() => {
    const sources = [path.join(projectRoot, "app"), path.join(projectRoot, "remix.config.js"), fixtureApp];
    if (getModifiedAt(builtServer) > Math.max(...sources.map(getNewestModifiedAt))) return;
    // Run from the fixture's folder: Remix resolves some build outputs against the working directory.
    execFileSync(path.join(projectRoot, "node_modules/.bin/remix"), ["build"], {
      cwd: fixtureApp,
      env: { ...process.env, NODE_ENV: "production" },
      stdio: "pipe",
    });
  });
}

async function withLock(build: () => void) {
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed run must not block every later one.
      if (Date.now() - getModifiedAt(lock) > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      await sleep(200);
    }
  }
  try {
    build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function getModifiedAt(file: string) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function getNewestModifiedAt(source: string): number {
  let newest = getModifiedAt(source);
  if (!statSync(source).isDirectory()) return newest;
  // Folders too: removing a file changes only its folder's time.
  for (const entry of readdirSync(source, { withFileTypes: true, recursive: true })) {
    newest = Math.max(newest, getModifiedAt(path.join(entry.parentPath, entry.name)));
  }
  return newest;
}

/** The catalogue's page for `code`, inside the site's layout, with nothing internal in it. */
export async function expectCataloguePage(response: Response, code: ErrorCode) {
  const { status, title, message } = errorCatalogue[code];
  expect(response.status).toBe(status);
  const html = await response.text();
  expect(html).toContain('<header class="site-header">');
  expect(html).toContain(`<h1 id="error-title">${title}</h1>`);
  expect(html).toContain(message);
  expect(html).not.toMatch(/at .+\.js:\d+|ECONN|Error:/);
}
