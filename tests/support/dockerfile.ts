import { readFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "./server";

export type Instruction = { keyword: string; args: string };
export type Stage = { image: string; name: string; instructions: Instruction[] };

/** The project's Dockerfile as stages of instructions (comments dropped, continued lines joined). */
export function readDockerfile(file = path.join(projectRoot, "Dockerfile")): Stage[] {
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword = "", args = ""] = /^(\S+)\s*(.*)$/.exec(line)!;
    if (keyword.toUpperCase() === "FROM") {
      const [image = "", , name] = args.split(/\s+/);
      stages.push({ image, name: name ?? String(stages.length), instructions: [] });
    } else {
      stages.at(-1)!.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

/** An exec-form (`["node", "x"]`) or shell-form command as the argument list Docker runs. */
export function getCommand(args: string): string[] {
  return args.startsWith("[") ? (JSON.parse(args) as string[]) : ["/bin/sh", "-c", args];
}

/** `ENV A=1 B="two"` as an object. */
export function getEnv(args: string): Record<string, string> {
  const pairs = args.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g);
  return Object.fromEntries(
    [...pairs].map(([, key, value = ""]) => [key, value.replace(/^"(.*)"$/, "$1")]),
  );
}

/** `--flag=value` options, then the remaining words. */
export function getOptions(args: string) {
  const options: Record<string, string> = {};
  let rest = args;
  for (let match; (match = /^--([\w-]+)=(\S+)\s*/.exec(rest)); rest = rest.slice(match[0].length))
    options[match[1]!] = match[2]!;
  return { options, rest };
}

/** Whether `.dockerignore` keeps `file` (a path relative to the build context) out of it. */
export function createDockerignore(text: string) {
  const rules = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const negate = line.startsWith("!");
      const pattern = line.replace(/^!/, "").replace(/^\/+|\/+$/g, "");
      const source = pattern
        .split("**")
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, "\\$&")
            .replace(/\*/g, "[^/]*")
            .replace(/\?/g, "[^/]"),
        )
        .join(".*");
      return { negate, test: new RegExp(`^${source}(/|$)`) };
    });
  return (file: string) =>
    rules.reduce((ignored, rule) => (rule.test.test(file) ? !rule.negate : ignored), false);
}
