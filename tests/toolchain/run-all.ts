// `npm test`: sets up what the suites need outside npm, checks and builds once, then runs every
// suite on this machine's Node and on the image's, and replays the image's recipe.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { getImageNode, getMajor, IMAGE_NODE_VERSION } from "./image-node";
import { ensureSystemPackages } from "./system-packages";

const checks = ["typecheck", "lint", "build"];
const suites = ["test:unit", "test:http", "test:e2e"];
const imageOnly = ["test:image"];

const started = Date.now();

function runScript(script: string, env: NodeJS.ProcessEnv = process.env) {
  const { status } = spawnSync("npm", ["run", script], { stdio: "inherit", env });
  if (status !== 0) {
    console.error(`npm run ${script} failed (exit ${status}).`);
    process.exit(status ?? 1);
  }
}

let imageNode: string;
try {
  ensureSystemPackages();
  imageNode = getImageNode();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

checks.forEach((script) => runScript(script));

const machineVersion = process.versions.node;
console.log(`\n=== Suites on this machine's Node ${machineVersion} ===`);
suites.forEach((script) => runScript(script));

const imageEnv = { ...process.env, PATH: `${path.dirname(imageNode)}${path.delimiter}${process.env.PATH}` };
if (getMajor(machineVersion) === getMajor(IMAGE_NODE_VERSION)) {
  console.log(`\n=== This machine's Node is the image's major: the suites above cover it ===`);
} else {
  const { stdout } = spawnSync("node", ["--version"], { env: imageEnv, encoding: "utf8" });
  console.log(`\n=== Suites on the image's Node ${stdout.trim()} ===`);
  suites.forEach((script) => runScript(script, imageEnv));
}
imageOnly.forEach((script) => runScript(script, imageEnv));

const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\nnpm test passed on Node ${machineVersion} and ${IMAGE_NODE_VERSION} in ${minutes} min.`);
