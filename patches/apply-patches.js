/*
 * Fixes this app carries for framework advisories that have no release on the lines Remix 2.17.5
 * runs on (docs/security.md, Dependencies). Each is a text replacement in an installed package's
 * build, written for one exact version: npm runs this after every install, and an install that
 * brings another version stops here, so that the fix is looked at again, never silently lost.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ERROR_TYPES = `["EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"]`;

export const patches = [
  {
    advisory: "GHSA-wrjc-x8rr-h8h6",
    package: "@remix-run/router",
    version: "1.23.4",
    files: ["dist/router.js", "dist/router.cjs.js"],
    // A backslash is a slash to the browser, which also drops every tab, CR and LF: neither
    // `/\evil.example` nor `/<TAB>/evil.example` may leave the site, and no resolved path may
    // start with two separators.
    replacements: [
      [
        'const removeDoubleSlashes = path => path.replace(/\\/\\/+/g, "/");',
        'const removeDoubleSlashes = path => path.replace(/[\\t\\n\\r]/g, "").replace(/[\\\\/]{2,}/g, "/");',
        // What the patch's first version left.
        'const removeDoubleSlashes = path => path.replace(/[\\\\/]{2,}/g, "/");',
      ],
      [
        'return segments.length > 1 ? segments.join("/") : "/";',
        'return segments.length > 1 ? removeDoubleSlashes(segments.join("/")) : "/";',
      ],
    ],
  },
  {
    advisory: "GHSA-337j-9hxr-rhxg",
    package: "@remix-run/react",
    version: "2.17.5",
    files: ["dist/errors.js", "dist/esm/errors.js"],
    // Hydration rebuilds an error of the standard types only, never whatever constructor is named.
    replacements: [["if (val.__subType) {", `if (${ERROR_TYPES}.includes(val.__subType)) {`]],
  },
];

/**
 * The text of `file` with every replacement `[from, to, ...what earlier versions of the patch
 * left]` made; throws when the file is not the one expected.
 */
export function patchText(text, replacements, file) {
  let patched = text;
  for (const [from, to, ...earlier] of replacements) {
    const found = [from, ...earlier].filter((before) => patched.includes(before));
    if (patched.includes(to) && found.length === 0) continue;
    if (found.length !== 1 || patched.split(found[0]).length !== 2)
      throw new Error(`${file}: expected "${from}" exactly once`);
    patched = patched.replace(found[0], () => to);
  }
  return patched;
}

/** Applies every patch under `nodeModules`; throws naming the first package that is not as expected. */
export function applyPatches(nodeModules) {
  for (const patch of patches) {
    const root = path.join(nodeModules, patch.package);
    const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
    if (version !== patch.version) {
      throw new Error(
        `${patch.package} is ${version}, the fix for ${patch.advisory} was written for ${patch.version}: ` +
          "see whether the new version fixes it, then update or remove the patch in patches/apply-patches.js",
      );
    }
    for (const file of patch.files) {
      const target = path.join(root, file);
      const text = readFileSync(target, "utf8");
      const patched = patchText(text, patch.replacements, `${patch.package}/${file}`);
      if (patched !== text) writeFileSync(target, patched);
    }
  }
}

/**
 * The advisories whose fix is missing from the packages `require` finds (the server's, resolved
 * from its build): an install that ran no scripts leaves them out.
 */
export function findMissingFixes(require) {
  const isFixed = (patch) => {
    try {
      const root = path.dirname(require.resolve(`${patch.package}/package.json`));
      return patch.files.every((file) => {
        const text = readFileSync(path.join(root, file), "utf8");
        return patch.replacements.every(([from, to]) => text.includes(to) && !text.includes(from));
      });
    } catch {
      return false;
    }
  };
  return patches.filter((patch) => !isFixed(patch)).map((patch) => patch.advisory);
}

// Run as a script, not bundled into the server, whose own file would then be argv[1].
const isScript = import.meta.url.endsWith("/apply-patches.js");
if (isScript && import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    applyPatches(path.join(process.cwd(), "node_modules"));
  } catch (error) {
    console.error(`patches/apply-patches.js: ${error.message}`);
    process.exitCode = 1;
  }
}
