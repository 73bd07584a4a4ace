import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import path from "node:path";

/**
 * The Node release the image's run of the suites uses, exactly. Its major is the Dockerfile's
 * (tests/unit/image-node.test.ts checks).
 */
export const IMAGE_NODE_VERSION = "24.21.0";

/** The npm of the major that Node 24 ships; the registry's Node packages hold no npm. */
export const IMAGE_NPM_VERSION = "11.21.2";

const projectRoot = path.resolve(import.meta.dirname, "../..");
const cacheDir = path.join(projectRoot, "node_modules/.cache");

export function getMajor(version: string) {
  return Number(/(\d+)/.exec(version)?.[1]);
}

/** Unpacks a registry package into node_modules/.cache/<name>-<version>/ once; returns that folder. */
function fetchPackage(name: string, version: string, onFetch: (what: string) => void) {
  const dir = path.join(cacheDir, `${name}-${version}`);
  if (existsSync(dir)) return dir;
  onFetch(`${name}@${version}`);
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(`${dir}.partial-`);
  try {
    const output = execFileSync(
      "npm",
      ["pack", `${name}@${version}`, "--pack-destination", work, "--silent"],
      { cwd: work, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    const tarball = output.trim().split("\n").at(-1)!;
    execFileSync("tar", ["-xzf", path.join(work, tarball), "-C", work]);
    renameSync(path.join(work, "package"), dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

const announce = (what: string) =>
  console.log(
    `Fetching ${what} from the npm registry into node_modules/.cache/ for the image's test run.`,
  );

/** The image's `node` binary for this machine's platform, fetched on first use. */
export function getImageNode(onFetch = announce) {
  const name = `node-${process.platform}-${process.arch}`;
  return path.join(fetchPackage(name, IMAGE_NODE_VERSION, onFetch), "bin/node");
}

/** The image's npm (its `npm-cli.js`, run by whichever `node` comes first on PATH), fetched on first use. */
export function getImageNpm(onFetch = announce) {
  return path.join(fetchPackage("npm", IMAGE_NPM_VERSION, onFetch), "bin/npm-cli.js");
}
