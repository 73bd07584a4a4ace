import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

export const projectRoot = path.resolve(import.meta.dirname, "../..");

export type Service = {
  name: string;
  url: string;
  port: number;
  child: ChildProcess;
  stop: () => Promise<void>;
  /** Sent with every request of the load: the page's tag, to be answered 304 (a reload). */
  headers?: Record<string, string>;
};

/**
 * Starts a server process on a port the system picks (read back from the line it logs, then its
 * output discarded, as a production log shipper would take it off the box) and waits until
 * `readyPath` answers 200. `cwd` holds the build it serves.
 */
export async function startService(
  name: string,
  args: string[],
  env: Record<string, string> = {},
  { readyPath = "/", cwd = projectRoot } = {},
): Promise<Service> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH, NODE_ENV: "production", PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await readPort(name, child);
  child.stdout!.resume();
  const url = `http://127.0.0.1:${port}`;
  const ready = async () => (await fetch(url + readyPath).catch(() => null))?.status === 200;
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    name,
    url,
    port,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** The port a process listens on, from the system's table: remix-serve prints the 0 it was given. */
function getListeningPort(pid: number) {
  const table = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" });
  const line = table.split("\n").find((entry) => entry.includes(`pid=${pid},`));
  return Number(/:(\d+)\s/.exec(line ?? "")?.[1] ?? 0);
}

/** The port a server says it listens on (ours logs it, as remix-serve prints it). */
export function readPort(name: string, child: ChildProcess) {
  return new Promise<number>((resolve, reject) => {
    let output = "";
    const read = (chunk: Buffer) => {
      output += chunk;
      const port = /http:\/\/localhost:(\d+)/.exec(output)?.[1];
      if (!port) return;
      child.stdout!.off("data", read);
      resolve(Number(port) || getListeningPort(child.pid!));
    };
    child.stdout!.on("data", read);
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}: ${output}`)));
  });
}

/** Resident set size of a process in bytes, from /proc (Linux). */
export function readRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const BENCH_SESSION_SECRET = "bench-secret-that-is-at-least-32-characters";

export const productionServer = (env: Record<string, string> = {}, name = "production") =>
  startService(name, ["build/server.js"], {
    SESSION_SECRET: BENCH_SESSION_SECRET,
    RATE_LIMIT_PER_MINUTE: "0",
    ...env,
  });

/** `remix-serve build/index.js` run in `cwd`, which holds the build (and the `public/` it serves). */
export const remixServe = (name: string, cwd = projectRoot) =>
  startService(
    name,
    [path.join(projectRoot, "node_modules/@remix-run/serve/dist/cli.js"), "build/index.js"],
    { SESSION_SECRET: BENCH_SESSION_SECRET },
    { cwd },
  );

/** The theme form posted as a browser without JavaScript posts it (same-origin, URL-encoded). */
export function postThemeForm(service: Service, theme: string) {
  return fetch(`${service.url}/preferences/theme`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: service.url,
      "sec-fetch-site": "same-origin",
    },
    body: new URLSearchParams({ theme, redirectTo: "/" }),
  });
}
