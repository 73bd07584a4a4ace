import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadedModulesOptions, readLoadedModules } from "../support/read-loaded-modules";
import { projectRoot, startSuiteServer } from "../support/server";

// `node build/server.js` with no NODE_ENV is production: the server sets it before anything that
// reads it loads. React's development build renders pages several times slower.
describe("a server started without NODE_ENV", () => {
  const server = startSuiteServer({ NODE_ENV: undefined, NODE_OPTIONS: loadedModulesOptions });

  it("renders with React's production build", async () => {
    expect((await fetch(server.url)).status).toBe(200);
    const reactFiles = (await readLoadedModules(server)).filter((file) =>
      file.includes("/react-dom/"),
    );
    expect(reactFiles).toContainEqual(expect.stringMatching(/react-dom-server\.node\.production/));
    expect(reactFiles.filter((file) => file.includes("development"))).toEqual([]);
  });
});

// The server takes the app's configuration, logger and call outcomes from the Remix build
// (server/process/build.ts): a module in both bundles would be two modules at run time.
describe("the server's own bundle (npm run build:server)", () => {
  const KEEPING_NOTHING = [
    "app/components/error-boundary.tsx",
    "app/lib/cache-rules.server.ts",
    "app/lib/constants.ts",
    "app/lib/errors.ts",
    "app/lib/redis.server.ts",
    "app/i18n/locales.ts",
    "app/i18n/messages.server.ts",
    "app/i18n/shell.ar.server.ts",
    "app/i18n/shell.en.server.ts",
    "app/i18n/translate.ts",
  ];

  it("holds only app/ modules that keep no state: the others are loaded once, in the build", () => {
    const output = path.join(projectRoot, "build");
    const files = [
      path.join(output, "server.js"),
      ...readdirSync(path.join(output, "server")).map((file) => path.join(output, "server", file)),
    ];
    const bundled = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^\/\/ (app\/\S+)$/gm)].map((match) => match[1]!),
    );
    expect(bundled).toContain("app/lib/errors.ts");
    expect(bundled.filter((module) => !KEEPING_NOTHING.includes(module))).toEqual([]);
  });
});

// `npm run dev` starts the API mock and its sign-in provider (server/dev.ts); the production
// server's bundle, the Remix build and the browser's hold none of it.
describe("the bundles npm run build makes", () => {
  // Its modules (named in a bundle's comments), its log lines, oidc-provider's code.
  const MOCK_CODE = /\/\/ server\/api-mock\/|API mock answering|contracts answers|devInteractions/;
  it.each(["build", "public/build"])("hold nothing of the API mock: %s", (dir) => {
    const files = readdirSync(path.join(projectRoot, dir), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".js"))
      .map((file) => path.join(projectRoot, dir, file));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(MOCK_CODE);
    }
  });
});
