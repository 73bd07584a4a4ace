// `npm test`: sets up what the suites need outside npm, then runs every step, as many at once as
// this process has CPUs, prints each step's output as it ends, and a table of wall and CPU time.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { getImageNode, getMajor, IMAGE_NODE_VERSION } from "./image-node";
import { ensureSystemPackages } from "./system-packages";

const inSecurity = (...names: string[]) => names.map((name) => `tests/security/${name}.test.ts`);

/**
 * What can differ between Node releases is Node's own code under the server: its HTTP parser and
 * server, URL and header parsing, sockets, zlib, timers and what its garbage collector frees.
 * These files put exactly that under test on this machine's Node; everything runs on the image's.
 */
export const NODE_SENSITIVE_FILES = [
  ...inSecurity("client-faults", "edge", "headers", "limits", "origin", "peer-deadlines"),
  ...inSecurity("protocol", "remix-endpoints", "shutdown"),
  "tests/http/foundation.test.ts",
  "tests/http/upstream-faults.test.ts",
];

type Step = {
  name: string;
  script: string;
  args?: string[];
  onImageNode?: boolean;
  needsBuild?: boolean;
};
type Result = { name: string; ok: boolean; seconds: number; cpuSeconds: number; log: string };

const projectRoot = path.resolve(import.meta.dirname, "../..");
const logDir = path.join(projectRoot, "node_modules/.cache/npm-test");
// Node 22 and later keep the code they compiled here: the hundred servers and workers a run starts
// load the same modules, and compile them once.
const compileCache = path.join(projectRoot, "node_modules/.cache/node-compile-cache");
const started = performance.now();
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

const onMachineNode: Step = {
  name: `HTTP on Node's own code, Node ${machineVersion}`,
  script: "test:http",
  args: NODE_SENSITIVE_FILES,
  needsBuild: true,
};
// The most CPU-hungry first, so that the last to end is a short one.
const steps: Step[] = [
  { name: "build", script: "build" },
  { name: `browser, ${image}`, script: "test:e2e", onImageNode: true, needsBuild: true },
  { name: `HTTP and security, ${image}`, script: "test:http", onImageNode: true, needsBuild: true },
  { name: `the image's recipe, ${image}`, script: "test:image", onImageNode: true },
  { name: "type check", script: "typecheck" },
  { name: "lint", script: "lint" },
  { name: `unit, ${image}`, script: "test:unit", onImageNode: true },
  ...(onlyOneNode ? [] : [onMachineNode]),
  {
    name: `Kubernetes manifests, ${image}`,
    script: "test:kubernetes",
    onImageNode: true,
    needsBuild: true,
  },
];

/** Runs one step with its output in a log file, printed whole once it ends, with the CPU it used. */
function runStep({ name, script, args = [], onImageNode }: Step) {
  const log = path.join(
    logDir,
    `${script}${args.length ? "-node-sensitive" : ""}${onImageNode ? "" : "-machine"}.log`,
  );
  const env = {
    ...process.env,
    NODE_COMPILE_CACHE: compileCache,
    ...(onImageNode ? { PATH: imagePath } : {}),
  };
  const start = performance.now();
  // bash's `times` reports the CPU of every process the step started and waited for.
  const command = 'npm run --silent "$@"; code=$?; times >&3; exit $code';
  return new Promise<boolean>((resolve) => {
    const chunks: Buffer[] = [];
    let times = "";
    const child = spawn("bash", ["-c", command, "bash", script, "--", ...args], {
      env,
      cwd: projectRoot,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    child.stdout!.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stdio[3]!.on("data", (chunk: Buffer) => (times += chunk));
    child.once("error", (error) => chunks.push(Buffer.from(String(error))));
    child.once("close", (code) => {
      const ok = code === 0;
      const seconds = (performance.now() - start) / 1000;
      const cpuSeconds = readChildrenCpuSeconds(times);
      writeFileSync(log, Buffer.concat(chunks));
      const verdict = ok ? "passed" : "FAILED";
      console.log(
        `\n=== ${name}: ${verdict} in ${Math.round(seconds)} s, ${Math.round(cpuSeconds)} CPU-s ===`,
      );
      process.stdout.write(readFileSync(log));
      results.push({ name, ok, seconds, cpuSeconds, log: path.relative(projectRoot, log) });
      resolve(ok);
    });
  });
}

// `times` prints the shell's own user and system time, then its children's: "0m1.5s 0m0.25s".
function readChildrenCpuSeconds(times: string) {
  const line = times.trim().split("\n").at(-1) ?? "";
  const spans = [...line.matchAll(/(\d+)m([\d.]+)s/g)];
  return spans.reduce((sum, [, m, s]) => sum + Number(m) * 60 + Number(s), 0);
}

/** Runs the steps, at most `slots` at a time, each as soon as a slot is free and its build is done. */
async function runAll(slots: number) {
  const waiting = [...steps];
  let built: boolean | undefined;
  const running = new Set<Promise<void>>();
  while (waiting.length > 0 || running.size > 0) {
    const next = waiting.findIndex((step) => !step.needsBuild || built !== undefined);
    if (next >= 0 && running.size < slots) {
      const [step] = waiting.splice(next, 1) as [Step];
      if (step.needsBuild && !built) {
        const log = "not run: the build failed";
        results.push({ name: step.name, ok: false, seconds: 0, cpuSeconds: 0, log });
        continue;
      }
      const run = runStep(step).then((ok) => {
        if (step.script === "build") built = ok;
        running.delete(run);
      });
      running.add(run);
      continue;
    }
    await Promise.race(running);
  }
}

mkdirSync(logDir, { recursive: true });
const slots = os.availableParallelism();
console.log(
  `Running ${steps.length} steps, ${slots} at a time (the CPUs this process may use); ` +
    "each step's output follows when it ends.",
);
await runAll(slots);

const wall = (performance.now() - started) / 1000;
const cpu = results.reduce((sum, result) => sum + result.cpuSeconds, 0);
console.log(`\n=== npm test: ${(wall / 60).toFixed(1)} min, ${Math.round(cpu)} CPU-s ===`);
console.log("result   wall s   CPU-s  step");
const figure = (value: number) => String(Math.round(value)).padStart(6);
for (const { name, ok, seconds, cpuSeconds, log } of results)
  console.log(
    `${ok ? "passed" : "FAILED"}  ${figure(seconds)}  ${figure(cpuSeconds)}  ${name}  (${log})`,
  );
console.log(`total   ${figure(wall)}  ${figure(cpu)}`);
const failed = results.filter((result) => !result.ok);
// Printed again last, where a CI page that shows only the end of the output still has them.
for (const { name, log } of failed)
  console.error(`\n=== what failed in ${name} ===\n${failures(log)}`);
if (failed.length > 0) {
  console.error(
    `\n${failed.length} of ${results.length} steps failed: ${failed.map((r) => r.name).join("; ")}.`,
  );
  process.exit(1);
}
console.log("\nEvery step passed.");

/** A failed step's report of its failures (Vitest's and Playwright's), or the end of its log. */
function failures(log: string) {
  const file = path.join(projectRoot, log);
  if (!existsSync(file)) return log;
  const lines = stripVTControlCharacters(readFileSync(file, "utf8")).split("\n");
  const first = lines.findIndex((line) => /Failed Tests \d|^\s+1\) /.test(line));
  const shown = lines.slice(first >= 0 ? first : -80).slice(0, 200);
  return shown.map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line)).join("\n");
}
