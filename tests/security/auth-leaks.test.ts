import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { parseHtml } from "../support/html";
import { loadedModulesOptions, readLoadedModules } from "../support/read-loaded-modules";
import { buildReferenceApp } from "../support/reference-app";
import { askServer, projectRoot, startSuiteServer } from "../support/server";

const loadedEsmOptions = `--import ${pathToFileURL(path.join(projectRoot, "tests/support/loaded-esm.js")).href}`;

// What sign-in brings: its libraries, and the names its tokens go by.
const SIGN_IN_LIBRARIES =
  /[\\/]node_modules[\\/](openid-client|oauth4webapi|jose|redis|@redis)[\\/]/;
const SIGN_IN_WORDS =
  /openid-client|oauth4webapi|EncryptJWT|jwtDecrypt|refreshTokenGrant|access_token|refresh_token|accessToken|refreshToken|idToken/;

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".js"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe("with sign-in off", () => {
  const server = startSuiteServer({ NODE_OPTIONS: `${loadedModulesOptions} ${loadedEsmOptions}` });

  it("loads none of its libraries, and /auth/* is the 404 page", async () => {
    for (const page of ["/", "/auth/sign-in?redirectTo=/", "/auth/callback?code=x&state=y"]) {
      const answer = await fetch(`${server.url}${page}`);
      expect(answer.status).toBe(page === "/" ? 200 : 404);
      // Shown, that is: every page's data carries the catalogue's words, "Sign in to continue" too.
      const shown = parseHtml(await answer.text());
      for (const script of shown.querySelectorAll("script")) script.remove();
      expect(shown.body.textContent).not.toContain("Sign in");
    }
    expect((await fetch(`${server.url}/auth/sign-out`, { method: "POST" })).status).toBe(404);
    const esm = (await askServer<{ files: string[] }>(server, "loaded-esm")).files;
    const commonJs = await readLoadedModules(server);
    expect(esm.some((url) => url.includes("/build/index.js"))).toBe(true);
    expect([...esm, ...commonJs].filter((file) => SIGN_IN_LIBRARIES.test(file))).toEqual([]);
  });
});

describe("the browser's JavaScript", () => {
  it("holds nothing of sign-in, in the app's build and the reference app's", async () => {
    const referenceApp = await buildReferenceApp();
    const files = [
      ...listFiles(path.join(projectRoot, "public/build")),
      ...listFiles(path.join(referenceApp, "public/build")),
    ];
    expect(files.length).toBeGreaterThan(5);
    const leaking = files.filter((file) => SIGN_IN_WORDS.test(readFileSync(file, "utf8")));
    expect(leaking).toEqual([]);
  });
});
