import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveTo } from "@remix-run/router";
import { describe, expect, it } from "vitest";
import { applyPatches, patches, patchText } from "../../patches/apply-patches.js";
import type { LockFile } from "../support/lock-file";
import { projectRoot } from "../support/server";

// The advisories listed in docs/security.md (Dependencies), held against what is installed.

type Advisory = {
  id: string;
  affects: { name: string; range: string }[];
  status: string;
  row: string;
};

function readAdvisories(): Advisory[] {
  const doc = readFileSync(path.join(projectRoot, "docs/security.md"), "utf8");
  return doc
    .split("\n")
    .filter((line) => line.startsWith("| GHSA-"))
    .map((row) => {
      const [advisory = "", affects = "", status = ""] = row
        .split(" | ")
        .map((cell) => cell.replace(/^\| /, ""));
      return {
        id: /^GHSA(-\w{4}){3}/.exec(advisory)![0],
        affects: affects.split(";").map((entry) => {
          const [, name = "", range = ""] = /`([^`]+)`\s+(.+)/.exec(entry.trim()) ?? [];
          return { name, range: range.trim() };
        }),
        status: /^\*\*([^*]+)\*\*/.exec(status)?.[1] ?? status,
        row,
      };
    });
}

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

function readInstalledVersions(name: string) {
  const lock: LockFile = readJson(path.join(projectRoot, "package-lock.json"));
  return Object.entries(lock.packages)
    .filter(([where]) => `/${where}`.endsWith(`/node_modules/${name}`))
    .map(([, entry]) => entry.version!);
}

const parseVersion = (version: string) => version.split(/[.-]/).slice(0, 3).map(Number);

function compareVersions(a: string, b: string) {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** Whether `version` satisfies every comparator of `range` (">=6.0.0 <7.18.0", "<2.17.3"). */
function isInRange(version: string, range: string) {
  return range.split(/\s+/).every((comparator) => {
    const [, operator = "=", bound = ""] = /^(>=|<=|>|<|=)?(\d+\.\d+\.\d+)$/.exec(comparator) ?? [];
    if (!bound) throw new Error(`not a comparator: ${comparator}`);
    const order = compareVersions(version, bound);
    return { ">=": order >= 0, "<=": order <= 0, ">": order > 0, "<": order < 0, "=": order === 0 }[
      operator
    ];
  });
}

describe("the framework advisories in docs/security.md", () => {
  const advisories = readAdvisories();

  it("name both advisories of the issue and every one found against the installed lines", () => {
    expect(advisories.map((advisory) => advisory.id)).toEqual(
      expect.arrayContaining(["GHSA-337j-9hxr-rhxg", "GHSA-wrjc-x8rr-h8h6", "GHSA-jjmj-jmhj-qwj2"]),
    );
    for (const advisory of advisories) {
      expect(advisory.affects.length, advisory.row).toBeGreaterThan(0);
      for (const { name, range } of advisory.affects) {
        expect(name, advisory.row).not.toBe("");
        expect(() => isInRange("1.0.0", range), advisory.row).not.toThrow();
      }
    }
  });

  it.each(readAdvisories().map((advisory) => [advisory.id, advisory] as const))(
    "%s: what is installed matches its status",
    (_id, advisory) => {
      const affected = advisory.affects.flatMap(({ name, range }) =>
        readInstalledVersions(name)
          .filter((version) => isInRange(version, range))
          .map((version) => `${name}@${version}`),
      );
      const tests = [...advisory.row.matchAll(/`(tests\/[^`]+)`/g)].map(([, file]) => file!);
      switch (advisory.status) {
        case "not affected":
          expect(affected, "an installed version is in the advisory's range").toEqual([]);
          break;
        case "patched here":
          expect(patches.filter((patch) => patch.advisory === advisory.id)).not.toEqual([]);
          expect(tests).not.toEqual([]);
          break;
        case "does not apply":
          expect(tests).not.toEqual([]);
          break;
        default:
          throw new Error(`unknown status "${advisory.status}" in: ${advisory.row}`);
      }
      for (const file of tests) expect(existsSync(path.join(projectRoot, file)), file).toBe(true);
    },
  );
});

describe("the router as patched for GHSA-wrjc-x8rr-h8h6", () => {
  // What a browser makes of a path: tabs, CRs and LFs dropped, a backslash read as a slash.
  const asBrowserReads = (path: string) => path.replace(/[\t\n\r]/g, "").replaceAll("\\", "/");

  it.each([
    "//elsewhere/",
    "/\\elsewhere/",
    "\\\\elsewhere/",
    "/\t/elsewhere/",
    "/\t\\elsewhere/",
    "/\n/elsewhere/",
    "/\r\n\\elsewhere/",
    "\\\t\\elsewhere/",
    "\t//elsewhere/",
  ])("resolves %j to a path of this site, from the root or a page", (to) => {
    for (const from of ["/", "/a/b"]) {
      const { pathname } = resolveTo(to, [from], from);
      expect(asBrowserReads(pathname), JSON.stringify(pathname)).toMatch(/^\/(?!\/)/);
    }
  });
});

describe("patches/apply-patches.js", () => {
  it.each(patches.map((patch) => [`${patch.package} for ${patch.advisory}`, patch] as const))(
    "is applied to %s at the version it was written for",
    (_name, patch) => {
      const root = path.join(projectRoot, "node_modules", patch.package);
      const { version } = readJson(path.join(root, "package.json"));
      expect(version, "the patched package changed version: update or remove its patch").toBe(
        patch.version,
      );
      expect(readInstalledVersions(patch.package)).toEqual([patch.version]);
      for (const file of patch.files) {
        const text = readFileSync(path.join(root, file), "utf8");
        for (const [from, to] of patch.replacements) {
          expect(text, file).toContain(to);
          expect(text, file).not.toContain(from);
        }
      }
    },
  );

  it("stops an install that brings another version, and one whose file is not as expected", () => {
    const patch = patches[0]!;
    const nodeModules = mkdtempSync(path.join(os.tmpdir(), "patches-"));
    try {
      const root = path.join(nodeModules, patch.package);
      cpSync(path.join(projectRoot, "node_modules", patch.package), root, { recursive: true });
      const manifest = path.join(root, "package.json");
      writeFileSync(manifest, JSON.stringify({ ...readJson(manifest), version: "99.0.0" }));
      expect(() => applyPatches(nodeModules)).toThrow(/is 99\.0\.0, the fix for GHSA-/);
    } finally {
      rmSync(nodeModules, { recursive: true, force: true });
    }
    expect(() => patchText("something else", patch.replacements, "file.js")).toThrow(
      /exactly once/,
    );
    const [from, to, earlier] = patch.replacements[0] as [string, string, string];
    expect(patchText(`a ${from} b`, [[from, to]], "file.js")).toBe(`a ${to} b`);
    expect(patchText(`a ${to} b`, [[from, to]], "file.js")).toBe(`a ${to} b`);
    // A file patched by an earlier version of the patch is brought up to this one.
    expect(patchText(`a ${earlier} b`, [[from, to, earlier]], "file.js")).toBe(`a ${to} b`);
  });
});
