import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/** What the suites need from outside npm: one Debian package a line. */
export const systemPackages = [
  {
    name: "chromium-headless-shell",
    binary: "/usr/bin/chromium-headless-shell",
    override: "CHROMIUM_PATH",
    neededBy: "the browser tests",
  },
  {
    name: "nginx-light",
    binary: "/usr/sbin/nginx",
    override: "NGINX_PATH",
    neededBy: "the scale-out test",
  },
  {
    name: "firefox-esr",
    binary: "/usr/bin/firefox-esr",
    override: "FIREFOX_PATH",
    neededBy: "the CSP report test (Firefox's report-uri)",
  },
  {
    name: "redis-server",
    binary: "/usr/bin/redis-server",
    override: "REDIS_SERVER_PATH",
    neededBy: "the shared rate limit test",
  },
] as const;

export type SystemPackage = (typeof systemPackages)[number];

export type SetupPlan =
  | { action: "none" }
  | { action: "install"; packages: string[]; line: string }
  | { action: "stop"; line: string };

function getBinary(pkg: SystemPackage) {
  return process.env[pkg.override] || pkg.binary;
}

function describeMissing(missing: readonly SystemPackage[]) {
  return missing.map((pkg) => `${getBinary(pkg)} (${pkg.neededBy})`).join(" and ");
}

/** The binary a suite needs, or an error pointing at what sets it up. */
export function requireSystemBinary(name: SystemPackage["name"]) {
  const pkg = systemPackages.find((candidate) => candidate.name === name)!;
  if (!existsSync(getBinary(pkg)))
    throw new Error(
      `${describeMissing([pkg])} not found: \`npm test\` installs it or says how (or set ${pkg.override}).`,
    );
  return getBinary(pkg);
}

/**
 * What to do about the missing packages: install them when this process can (root, apt-get,
 * no override pointing elsewhere), otherwise stop with the command to run.
 */
export function getSetupPlan(
  missing: readonly SystemPackage[],
  { isRoot, hasAptGet }: { isRoot: boolean; hasAptGet: boolean },
): SetupPlan {
  if (missing.length === 0) return { action: "none" };
  const names = missing.map((pkg) => pkg.name);
  const overridden = missing.filter((pkg) => process.env[pkg.override]);
  if (overridden.length > 0) {
    const settings = overridden.map((pkg) => `${pkg.override}=${process.env[pkg.override]}`);
    const line = `${settings.join(", ")} names no file: point it at the binary, or unset it.`;
    return { action: "stop", line };
  }
  if (isRoot && hasAptGet) {
    const what = missing.map((pkg) => pkg.neededBy).join(" and ");
    return {
      action: "install",
      packages: names,
      line: `Installing ${names.join(", ")} with apt-get: ${what} ${missing.length > 1 ? "need them" : "needs it"}.`,
    };
  }
  const command = `${isRoot ? "" : "sudo "}apt-get install -y ${names.join(" ")}`;
  const variables = missing.map((pkg) => pkg.override).join(", ");
  return {
    action: "stop",
    line: `npm test needs ${describeMissing(missing)}: run \`${command}\` (or set ${variables}), then npm test again.`,
  };
}

function hasCommand(command: string) {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .some((dir) => dir && existsSync(path.join(dir, command)));
}

/** Installs what the suites need, or throws one line naming the command to run. */
export function ensureSystemPackages() {
  const missing = () => systemPackages.filter((pkg) => !existsSync(getBinary(pkg)));
  const plan = getSetupPlan(missing(), {
    isRoot: process.getuid?.() === 0,
    hasAptGet: hasCommand("apt-get"),
  });
  if (plan.action === "none") return;
  if (plan.action === "stop") throw new Error(plan.line);
  console.log(plan.line);
  const apt = {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  } as const;
  execFileSync("apt-get", ["update", "-qq"], apt);
  execFileSync("apt-get", ["install", "-y", "-qq", ...plan.packages], apt);
  const still = missing();
  if (still.length > 0)
    throw new Error(
      `apt-get installed ${plan.packages.join(", ")} but ${describeMissing(still)} is still missing.`,
    );
}
