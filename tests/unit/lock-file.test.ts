import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findMissingOptionalEntries, resolveLockEntry, type LockFile } from "../support/lock-file";
import { projectRoot } from "../support/server";

const readLock = (): LockFile =>
  JSON.parse(readFileSync(path.join(projectRoot, "package-lock.json"), "utf8"));

describe("package-lock.json", () => {
  it("has an entry for every optional dependency of every locked package", () => {
    const missing = findMissingOptionalEntries(readLock());
    expect(
      missing,
      "package-lock.json lacks platform packages, so `npm ci` refuses it on npm 11.6+: " +
        "delete package-lock.json and node_modules and run `npm install` with npm 11, " +
        "or pin the dependency in `overrides` to a version whose platform packages all exist (see docs/image.md, The lock file and the rollup pin)",
    ).toEqual([]);
  });

  it("reports an optional dependency whose entry was removed", () => {
    const lock = readLock();
    const [from, entry] = Object.entries(lock.packages).find(([, e]) => e.optionalDependencies)!;
    const [dependency, range] = Object.entries(entry.optionalDependencies!)[0]!;
    delete lock.packages[resolveLockEntry(lock, from, dependency)!];
    expect(findMissingOptionalEntries(lock)).toContain(`${from} > ${dependency}@${range}`);
  });

  it("resolves nested entries before hoisted ones, as npm does, and checks exact versions", () => {
    const nested: LockFile = {
      packages: {
        "node_modules/a/node_modules/b": {
          optionalDependencies: { c: "1.0.0", d: "1.0.0", e: "^1.0.0" },
        },
        "node_modules/a/node_modules/b/node_modules/c": { version: "1.0.0" },
        "node_modules/a/node_modules/d": { version: "1.0.0" },
        "node_modules/c": { version: "2.0.0" },
        "node_modules/e": { version: "1.2.0" },
      },
    };
    expect(findMissingOptionalEntries(nested)).toEqual([]);
    delete nested.packages["node_modules/a/node_modules/b/node_modules/c"];
    expect(findMissingOptionalEntries(nested)).toEqual(["node_modules/a/node_modules/b > c@1.0.0"]);
  });
});
