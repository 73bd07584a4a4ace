import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createValidator, FORM_TYPE, readOperations } from "~/api/openapi.server";
import type { Operation as ContractOperation } from "~/api/openapi.server";
import { isNestedDeeperThan, MAX_JSON_DEPTH } from "~/lib/json-depth";
import { describe, readAnswers, type Answer } from "./answers";

// The API contracts (app/api/contracts/), their JSON copies read as the app reads them: each
// operation, how to check what the app sends it, and every answer it may give.

export type Operation = ContractOperation & {
  contract: string;
  match: (pathname: string) => Record<string, string> | undefined;
  /** What is wrong with a request for this operation, or undefined. */
  check: (request: Sent) => string | undefined;
  /** The first is given unless a scenario picks another. */
  answers: Answer[];
};

type Sent = {
  params: Record<string, string>;
  query: URLSearchParams;
  type?: string;
  body?: string;
};

/** The `*.yaml` documents of `dir`, in name order. */
export function listContracts(dir: string) {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => path.join(dir, name));
}

/**
 * Every operation of the contracts in `dir` (their JSON copies, read as the app reads them), and
 * what is wrong with them (an example off its schema, an answer with no example). Throws on what
 * cannot be read at all.
 */
export function readContracts(dir: string) {
  const operations: Operation[] = [];
  const problems: string[] = [];
  for (const file of listContracts(dir)) {
    const contract = path.basename(file, ".yaml");
    const document = JSON.parse(readFileSync(file.replace(/\.yaml$/, ".json"), "utf8")) as object;
    // What a request's text says is coerced to the schema's types; a JSON body is taken as it is.
    const params = createValidator(document, { coerceTypes: "array" });
    const bodies = createValidator(document);
    for (const read of readOperations(document)) {
      const same = operations.find((o) => o.method === read.method && o.path === read.path);
      if (same) throw new Error(`${read.id}: ${same.contract} has ${same.id} there already`);
      const checkParams = params(read.params);
      const checkQuery = params(read.query);
      const checkBody = readRequestBody(read, params, bodies);
      const names = [...read.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name!);
      const parts = read.path
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"));
      const matcher = new RegExp(`^${parts.join("([^/]+)")}$`);
      operations.push({
        ...read,
        contract,
        match(pathname: string) {
          const found = matcher.exec(pathname) ?? undefined;
          try {
            return (
              found &&
              Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1]!)]))
            );
          } catch {
            return undefined;
          }
        },
        check(sent: Sent) {
          // One value, or several: coerced to the parameter's type, a list or not.
          const values = Object.fromEntries(
            [...new Set(sent.query.keys())].map((key) => [key, sent.query.getAll(key)]),
          );
          return (
            describe(checkParams, sent.params, "path") ??
            describe(checkQuery, values, "query") ??
            checkBody(sent)
          );
        },
        answers: readAnswers(read, bodies, problems),
      });
    }
  }
  return { operations, problems };
}

type Compile = ReturnType<typeof createValidator>;

function readRequestBody({ body }: ContractOperation, params: Compile, bodies: Compile) {
  const validators = new Map(
    Object.entries(body?.types ?? {}).map(([type, media]) => {
      return [type, (type === FORM_TYPE ? params : bodies)(media.schema)];
    }),
  );
  return ({ type = "", body: sent = "" }: Sent) => {
    if (!sent) return body?.required ? "body: required" : undefined;
    const validate = validators.get(type.split(";")[0]!.trim().toLowerCase());
    if (!validate) return `body: ${type || "no content type"} is not one the contract takes`;
    if (isNestedDeeperThan(sent, MAX_JSON_DEPTH))
      return `body: nested deeper than ${MAX_JSON_DEPTH}`;
    let value: unknown;
    try {
      value = type.startsWith(FORM_TYPE)
        ? Object.fromEntries(new URLSearchParams(sent))
        : JSON.parse(sent);
    } catch {
      return "body: not JSON";
    }
    return describe(validate, value, "body");
  };
}
