/**
 * This app built with Remix's default entry instead of app/entry.server.tsx: what a user who
 * started from the stock template would run. Remix falls back to its own streaming entry when
 * the app folder has none, so the build works on a copy of app/ without the file.
 */
import { execFileSync } from "node:child_process";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "./processes";

export const defaultEntryDirectory = path.join(projectRoot, "node_modules/.cache/bench-default-entry");

/** Builds into `defaultEntryDirectory` (its `build/` and `public/`, as `remix-serve` expects them there). */
export function buildWithDefaultEntry() {
  const inProject = (file: string) => path.join(projectRoot, file);
  const into = (file: string) => path.join(defaultEntryDirectory, file);
  rmSync(defaultEntryDirectory, { recursive: true, force: true });
  cpSync(inProject("app"), into("app"), {
    recursive: true,
    filter: (source) => source !== inProject("app/entry.server.tsx"),
  });
  cpSync(inProject("public"), into("public"), {
    recursive: true,
    filter: (source) => source !== inProject("public/build"),
  });
  // The app reads its version from it; Remix picks the default entry's runtime from its dependencies.
  cpSync(inProject("package.json"), into("package.json"));
  writeFileSync(into("remix.config.js"), `export { default } from "../../../remix.config.js";\n`);
  const paths = { "~/*": ["./app/*"] };
  writeFileSync(
    into("tsconfig.json"),
    JSON.stringify({ extends: "../../../tsconfig.json", compilerOptions: { baseUrl: ".", paths } }),
  );
  execFileSync(inProject("node_modules/.bin/remix"), ["build"], {
    cwd: defaultEntryDirectory,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: "pipe",
  });
}
