// `npm test`: sets up what the suites need outside npm, then runs every step in three lanes at
// once, prints each step's output as it ends, and lists every failure at the end (docs/testing.md).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getImageNode, getMajor, IMAGE_NODE_VERSION } from "./image-node";
import { ensureSystemPackages } from "./system-packages";

/**
 * What can differ between Node releases is Node's own code under the server: its HTTP parser and
 * server, URL and header parsing, sockets and zlib. These HTTP files put exactly that under test
 * on this machine's Node; everything runs on the image's.
 */
export const NODE_SENSITIVE_FILES = [
  "tests/security/client-faults.test.ts",
  "tests/security/edge.test.ts",
  "tests/security/headers.test.ts",
  "tests/security/limits.test.ts",
  "tests/security/origin.test.ts",
  "tests/security/protocol.test.ts",
  "tests/security/remix-endpoints.test.ts",
  "tests/http/foundation.test.ts",
  "tests/http/upstream-faults.test.ts",
];

type Step = { name: string; script: string; args?: string[]; onImageNode?: boolean; needsBuild?: boolean };
type Result = { name: string; ok: boolean; seconds: number; log: string };

const projectRoot = path.resolve(import.meta.dirname, "../..");
const logDir = path.join(projectRoot, "node_modules/.cache/npm-test");
const started = Date.now();
const results: Result[] = [];

let imageNode: string;
try {
  ensureSystemPackages();
  imageNode = getImageNode();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const imagePath = `${path.dirname(imageNode)}${path.delimiter}${process.env.PATH}`;
const machineVersion = process.versions.node;
const onlyOneNode = getMajor(machineVersion) === getMajor(IMAGE_NODE_VERSION);
const image = `Node ${IMAGE_NODE_VERSION}`;
const machine = `Node ${machineVersion}`;

const build: Step = { name: "build", script: "build" };
// The build comes first in its lane; the steps that serve it wait for it, the rest need none.
const lanes: Step[][] = [
  [build, { name: `browser, ${image}`, script: "test:e2e", onImageNode: true, needsBuild: true }],
  [
    { name: `HTTP and security, ${image}`, script: "test:http", onImageNode: true, needsBuild: true },
    ...(onlyOneNode
      ? []
      : [
          {
            name: `HTTP on Node's own code, ${machine}`,
            script: "test:http",
            args: NODE_SENSITIVE_FILES,
            needsBuild: true,
          },
        ]),
    {
      name: `Kubernetes manifests, ${image}`,
      script: "test:kubernetes",
      onImageNode: true,
      needsBuild: true,
    },
  ],
  [
    { name: "type check", script: "typecheck" },
    { name: "lint", script: "lint" },
    { name: `unit, ${image}`, script: "test:unit", onImageNode: true },
    { name: `the image's recipe, ${image}`, script: "test:image", onImageNode: true },
  ],
];

/** Runs one step with its output in a log file, printed whole once it ends. */
function runStep({ name, script, args = [], onImageNode }: Step) {
  const log = path.join(
    logDir,
    `${script}${args.length ? "-node-sensitive" : ""}${onImageNode ? "" : "-machine"}.log`,
  );
  const env = { ...process.env, ...(onImageNode ? { PATH: imagePath } : {}) };
  const start = Date.now();
  return new Promise<boolean>((resolve) => {
    const chunks: Buffer[] = [];
    const child = spawn("npm", ["run", "--silent", script, "--", ...args], { env, cwd: projectRoot });
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.once("error", (error) => chunks.push(Buffer.from(String(error))));
    child.once("close", (code) => {
      const ok = code === 0;
      const seconds = (Date.now() - start) / 1000;
      writeFileSync(log, Buffer.concat(chunks));
      console.log(`\n=== ${name}: ${ok ? "passed" : "FAILED"} in ${Math.round(seconds)} s ===`);
      process.stdout.write(readFileSync(log));
      results.push({ name, ok, seconds, log: path.relative(projectRoot, log) });
      resolve(ok);
    });
  });
}

mkdirSync(logDir, { recursive: true });
console.log(
  `Running ${lanes.flat().length} steps in ${lanes.length} lanes; each step's output follows when it ends.`,
);
let built: (ok: boolean) => void;
const buildDone = new Promise<boolean>((resolve) => (built = resolve));
await Promise.all(
  lanes.map(async (lane) => {
    for (const step of lane) {
      if (step.needsBuild && !(await buildDone)) {
        results.push({ name: step.name, ok: false, seconds: 0, log: "not run: the build failed" });
        continue;
      }
      const ok = await runStep(step);
      if (step === build) built(ok);
    }
  }),
);

const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\n=== npm test: ${minutes} min ===`);
for (const { name, ok, seconds, log } of results) {
  console.log(`${ok ? "passed" : "FAILED"}  ${String(Math.round(seconds)).padStart(4)} s  ${name}  (${log})`);
}
const failed = results.filter((result) => !result.ok);
if (failed.length > 0) {
  console.error(
    `\n${failed.length} of ${results.length} steps failed: ${failed.map((r) => r.name).join("; ")}.`,
  );
  process.exit(1);
}
console.log("\nEvery step passed.");
