import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../support/server";

const HOME_PAGE_BUDGET_BYTES = 100 * 1024;
const buildDir = path.join(projectRoot, "public/build");

type Manifest = {
  entry: { module: string; imports?: string[] };
  routes: Record<string, { module: string; imports?: string[] }>;
};

function readManifest(): Manifest {
  const file = readdirSync(buildDir).find((name) => /^manifest-.*\.js$/.test(name));
  const source = readFileSync(path.join(buildDir, file!), "utf8");
  return JSON.parse(source.replace(/^window\.__remixManifest=/, "").replace(/;\s*$/, "")) as Manifest;
}

/** Every script the home page loads: the entry, and the root, layout and index routes with their chunks. */
function getHomePageScripts() {
  const { entry, routes } = readManifest();
  const parts = [entry, routes["root"]!, routes["routes/_site"]!, routes["routes/_site._index"]!];
  return [...new Set(parts.flatMap((part) => [part.module, ...(part.imports ?? [])]))];
}

function readBuilt(url: string) {
  return readFileSync(path.join(projectRoot, "public", url));
}

describe("the home page's JavaScript (run after npm run build)", () => {
  it("stays within its budget, gzipped", () => {
    const total = getHomePageScripts().reduce((sum, url) => sum + gzipSync(readBuilt(url)).length, 0);
    expect(total).toBeLessThan(HOME_PAGE_BUDGET_BYTES);
  });

  it("carries no validation library: the theme control validates on the server", () => {
    for (const url of getHomePageScripts()) {
      const source = readBuilt(url).toString("utf8");
      expect({ url, conform: source.includes("__intent__"), zod: source.includes("$ZodType") }).toEqual({
        url,
        conform: false,
        zod: false,
      });
    }
  });

  it("detects the validation library where a route does bring it", () => {
    const { routes } = readManifest();
    const theme = routes["routes/_site.preferences.theme"]!;
    const sources = [theme.module, ...(theme.imports ?? [])].map((url) => readBuilt(url).toString("utf8"));
    expect(sources.some((source) => source.includes("__intent__"))).toBe(true);
  });
});
