// Replays the Dockerfile without an engine: each stage is a folder standing for its file system,
// its base image is the pinned Node (and npm), RUN runs there, COPY copies between folders, and
// the last stage's CMD and HEALTHCHECK run as an unprivileged user.
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDockerignore,
  getCommand,
  getEnv,
  getOptions,
  readDockerfile,
  type Stage,
} from "../support/dockerfile";
import { APP_NAME } from "../../app/lib/constants";
import {
  HANG_TIMEOUT_MS,
  projectRoot,
  reservePort,
  startServer,
  type RunningServer,
} from "../support/server";
import { getImageNode, getImageNpm } from "../toolchain/image-node";

// Only what reaching the registry needs on this machine; a docker build has nothing else.
const proxies = ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"].flatMap((v) => [v, v.toLowerCase()]);
const hostVariables = ["HOME", "NODE_EXTRA_CA_CERTS", ...proxies];

type Container = {
  root: string;
  workdir: string;
  env: NodeJS.ProcessEnv;
  cmd: string[];
  healthcheck: string[];
};

const at = (root: string, file: string) => path.join(root, path.posix.resolve("/", file));

/** The build context: tracked and new files of the working tree, less what .dockerignore keeps out. */
function createContext(dir: string) {
  const ignored = createDockerignore(readFileSync(path.join(projectRoot, ".dockerignore"), "utf8"));
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    { cwd: projectRoot, encoding: "utf8" },
  ).split("\0");
  for (const file of files)
    if (file && !ignored(file) && existsSync(path.join(projectRoot, file)))
      cpSync(path.join(projectRoot, file), path.join(dir, file));
}

function replayStage(
  stage: Stage,
  root: string,
  roots: Record<string, string>,
  context: string,
): Container {
  const bin = at(root, "/usr/local/bin");
  mkdirSync(bin, { recursive: true });
  cpSync(getImageNode(), path.join(bin, "node"));
  symlinkSync(getImageNpm(), path.join(bin, "npm"));
  // Remix's globals declare NODE_ENV always set; a stage has only what its ENV lines say.
  const env = {} as NodeJS.ProcessEnv;
  const container: Container = { root, workdir: "/", env, cmd: [], healthcheck: [] };
  const getEnvironment = () => ({
    ...Object.fromEntries(
      hostVariables.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
    ),
    ...container.env,
    PATH: [bin, "/usr/bin", "/bin"].join(path.delimiter),
  });
  for (const { keyword, args } of stage.instructions) {
    if (keyword === "WORKDIR") {
      container.workdir = path.posix.resolve(container.workdir, args);
      mkdirSync(at(root, container.workdir), { recursive: true });
    } else if (keyword === "ENV") {
      Object.assign(container.env, getEnv(args));
    } else if (keyword === "COPY") {
      const { options, rest } = getOptions(args);
      const sources = rest.split(/\s+/);
      const destination = sources.pop()!;
      for (const source of sources) {
        const from = options.from ? at(roots[options.from]!, source) : path.join(context, source);
        const to = at(root, path.posix.resolve(container.workdir, destination));
        const intoFolder = destination.endsWith("/") && !statSync(from).isDirectory();
        const target = intoFolder ? path.join(to, path.basename(from)) : to;
        cpSync(from, target, { recursive: true, verbatimSymlinks: true });
      }
    } else if (keyword === "RUN") {
      const [command, ...rest] = getCommand(args);
      const run = spawnSync(command!, rest, {
        cwd: at(root, container.workdir),
        env: getEnvironment(),
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      if (run.status !== 0)
        throw new Error(`RUN ${args} failed (exit ${run.status}):\n${run.stdout}${run.stderr}`);
    } else if (keyword === "CMD") {
      container.cmd = getCommand(args);
    } else if (keyword === "HEALTHCHECK") {
      container.healthcheck = getCommand(getOptions(args).rest.replace(/^CMD\s+/, ""));
    } else if (!["USER", "EXPOSE"].includes(keyword)) {
      throw new Error(`tests/image/recipe.test.ts cannot replay ${keyword} yet.`);
    }
  }
  Object.assign(container.env, { PATH: getEnvironment().PATH });
  return container;
}

// The image's `node` user does not exist here: as root, `nobody` plays it; any other user
// running the tests is unprivileged already and runs the server itself.
const nobody = (flag: string) => Number(execFileSync("id", [flag, "nobody"], { encoding: "utf8" }));
const runAs = process.getuid?.() === 0 ? { uid: nobody("-u"), gid: nobody("-g") } : {};

describe("the Dockerfile's recipe", () => {
  const dockerfile = readDockerfile();
  const tmp = mkdtempSync(path.join(os.tmpdir(), "image-"));
  let runtime: Container;
  let server: RunningServer;

  const healthcheck = () =>
    spawnSync(runtime.healthcheck[0]!, runtime.healthcheck.slice(1), {
      cwd: at(runtime.root, runtime.workdir),
      env: runtime.env,
      timeout: HANG_TIMEOUT_MS,
      ...runAs,
    }).status;

  beforeAll(async () => {
    chmodSync(tmp, 0o755);
    const context = path.join(tmp, "context");
    createContext(context);
    const roots: Record<string, string> = {};
    for (const stage of dockerfile) {
      roots[stage.name] = path.join(tmp, stage.name);
      runtime = replayStage(stage, roots[stage.name]!, roots, context);
    }
    // The one value changed: a port the system picked, handed over as a service manager would,
    // which the HEALTHCHECK reads from the same environment.
    const listener = await reservePort();
    runtime.env.PORT = String(listener.port);
    const [command, ...args] = runtime.cmd;
    const options = { command: command!, args, cwd: at(runtime.root, runtime.workdir), listener };
    server = await startServer({}, { ...options, baseEnv: runtime.env, user: runAs });
  }, 3 * HANG_TIMEOUT_MS);

  // Removing a whole node_modules takes a while on a busy machine.
  afterAll(async () => {
    await server?.stop("SIGKILL");
    rmSync(tmp, { recursive: true, force: true });
  }, HANG_TIMEOUT_MS);

  it("ships production dependencies only, and says how much", () => {
    const workdir = at(runtime.root, runtime.workdir);
    expect(existsSync(path.join(workdir, "node_modules/express"))).toBe(true);
    expect(existsSync(path.join(workdir, "node_modules/vitest"))).toBe(false);
    console.log(
      execFileSync("du", ["-sh", ...readdirSync(workdir)], { cwd: workdir, encoding: "utf8" }),
    );
  });

  it("runs the server as an unprivileged user, and its HEALTHCHECK passes", () => {
    const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
    const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    expect(uid).not.toBe("0");
    expect(healthcheck()).toBe(0);
  });

  it("renders the home page and serves its scripts", async () => {
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`<h1 translate="no">${APP_NAME}</h1>`);
    const script = /"(\/build\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${server.url}${script}`)).status).toBe(200);
  });

  it("fails the HEALTHCHECK once the server has stopped", async () => {
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(healthcheck()).not.toBe(0);
  });
});
