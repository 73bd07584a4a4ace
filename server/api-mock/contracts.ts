import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parse } from "yaml";
import { isNestedDeeperThan, MAX_JSON_DEPTH } from "~/lib/json-depth";

// The API contracts (OpenAPI 3.1, one document per file in app/api/contracts/), read for the mock:
// each operation, how to check what the app sends it, and every answer it may give.

/** One answer an operation may give: a named example of one of its responses, or a failure. */
export type Answer = {
  id: string;
  label: string;
  status: number;
  mediaType?: string;
  value?: unknown;
  /** A response with content but no example: the mock cannot give it. */
  missing?: boolean;
  /** Holds the call until the app's deadline passes. */
  hang?: boolean;
};

export type Operation = {
  id: string;
  method: string;
  /** As the contract writes it, `/things/{id}`. */
  path: string;
  contract: string;
  match: (pathname: string) => Record<string, string> | undefined;
  /** What is wrong with a request for this operation, or undefined. */
  check: (request: Sent) => string | undefined;
  secured: boolean;
  /** The first is given unless a scenario picks another. */
  answers: Answer[];
};

type Sent = {
  params: Record<string, string>;
  query: URLSearchParams;
  type?: string;
  body?: string;
};
type Node = Record<string, unknown>;

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
const JSON_TYPE = /^application\/([\w.+-]+\+)?json$/;
const FORM_TYPE = "application/x-www-form-urlencoded";

/** Answers every operation has, whatever its contract says: the ways the API itself fails. */
export const FAILURES: Answer[] = [
  {
    id: "unavailable",
    label: "503, the API is unavailable",
    status: 503,
    mediaType: "application/problem+json",
    value: { type: "about:blank", status: 503, title: "Service unavailable" },
  },
  {
    id: "failing",
    label: "500, the API fails",
    status: 500,
    mediaType: "application/problem+json",
    value: { type: "about:blank", status: 500, title: "Internal server error" },
  },
  { id: "no-answer", label: "No answer before the deadline", status: 0, hang: true },
];

/** The `*.yaml` documents of `dir`, in name order. */
export function listContracts(dir: string) {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => path.join(dir, name));
}

/**
 * Every operation of the contracts in `dir`, and what is wrong with them (an example off its
 * schema, an answer with no example). Throws on what cannot be read at all.
 */
export function readContracts(dir: string) {
  const params = createAjv({ coerceTypes: "array" });
  const bodies = createAjv({});
  const operations: Operation[] = [];
  const problems: string[] = [];
  for (const file of listContracts(dir)) {
    const name = path.basename(file, ".yaml");
    const document = parse(readFileSync(file, "utf8")) as Node;
    if (!String(document.openapi).startsWith("3.1"))
      throw new Error(`${name}: not an OpenAPI 3.1 document`);
    for (const ajv of [params, bodies]) ajv.addSchema({ ...document, $id: `contract:${name}` });
    const read = { name, document, params, bodies, problems };
    for (const [template, item] of Object.entries((document.paths ?? {}) as Record<string, Node>)) {
      const pathItem = resolve(document, item, name);
      for (const method of METHODS.filter((method) => pathItem[method])) {
        const operation = readOperation(read, template, method, pathItem);
        const same = operations.find((o) => o.method === operation.method && o.path === template);
        if (same) throw new Error(`${operation.id}: ${same.contract} has ${same.id} there already`);
        operations.push(operation);
      }
    }
  }
  return { operations, problems };
}

type Reading = {
  name: string;
  document: Node;
  params: Ajv2020;
  bodies: Ajv2020;
  problems: string[];
};

function readOperation(read: Reading, template: string, method: string, pathItem: Node) {
  const { name, document } = read;
  const operation = resolve(document, pathItem[method], name);
  const id = String(operation.operationId ?? `${method.toUpperCase()} ${template}`);
  const parameters = [
    ...((pathItem.parameters ?? []) as Node[]),
    ...((operation.parameters ?? []) as Node[]),
  ].map((parameter) => resolve(document, parameter, name));
  const inPlace = (place: string) => {
    const named = new Map(parameters.filter((p) => p.in === place).map((p) => [String(p.name), p]));
    const schema = {
      type: "object",
      properties: Object.fromEntries(
        [...named].map(([key, p]) => [key, anchor(p.schema ?? {}, name)]),
      ),
      required: [...named].filter(([, p]) => p.required).map(([key]) => key),
      additionalProperties: false,
    };
    return { named, validate: read.params.compile(schema) };
  };
  const pathParams = inPlace("path");
  const query = inPlace("query");
  const body = readRequestBody(read, operation);
  const names: string[] = [];
  const pattern = template.replace(/\{([^}]+)\}|[^{]+/g, (part, param?: string) => {
    if (param === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
    names.push(param);
    return "([^/]+)";
  });
  const matcher = new RegExp(`^${pattern}$`);
  const security = (operation.security ?? document.security ?? []) as Node[];
  return {
    id,
    method: method.toUpperCase(),
    path: template,
    contract: name,
    secured: security.some((requirement) => Object.keys(requirement).length > 0),
    match(pathname: string) {
      const found = matcher.exec(pathname);
      try {
        if (!found) return undefined;
        return Object.fromEntries(
          names.map((param, i) => [param, decodeURIComponent(found[i + 1]!)]),
        );
      } catch {
        return undefined;
      }
    },
    check(sent: Sent) {
      const values = Object.fromEntries(
        [...new Set(sent.query.keys())].map((key) => {
          const all = sent.query.getAll(key);
          const schema = query.named.get(key)?.schema as Node | undefined;
          return [key, schema?.type === "array" ? all : all[0]];
        }),
      );
      return (
        describe(pathParams.validate, sent.params, "path") ??
        describe(query.validate, values, "query") ??
        body(sent)
      );
    },
    answers: [...readAnswers(read, id, operation), ...FAILURES],
  } satisfies Operation;
}

function readRequestBody(read: Reading, operation: Node) {
  const requestBody = operation.requestBody
    ? resolve(read.document, operation.requestBody, read.name)
    : undefined;
  const content = (requestBody?.content ?? {}) as Record<string, Node>;
  const validators = new Map(
    Object.entries(content).map(([type, media]) => {
      const ajv = type === FORM_TYPE ? read.params : read.bodies;
      return [type, ajv.compile(anchor(media.schema ?? {}, read.name))];
    }),
  );
  return ({ type = "", body = "" }: Sent) => {
    if (!body) return requestBody?.required ? "body: required" : undefined;
    const validate = validators.get(type.split(";")[0]!.trim().toLowerCase());
    if (!validate) return `body: ${type || "no content type"} is not one the contract takes`;
    if (isNestedDeeperThan(body, MAX_JSON_DEPTH))
      return `body: nested deeper than ${MAX_JSON_DEPTH}`;
    let value: unknown;
    try {
      value = type.startsWith(FORM_TYPE)
        ? Object.fromEntries(new URLSearchParams(body))
        : JSON.parse(body);
    } catch {
      return "body: not JSON";
    }
    return describe(validate, value, "body");
  };
}

function readAnswers(read: Reading, id: string, operation: Node): Answer[] {
  const { document, name } = read;
  const responses = Object.entries((operation.responses ?? {}) as Record<string, Node>);
  // Successes first: the first example of the first is the answer given unless one is picked.
  responses.sort(([a], [b]) => Number(!a.startsWith("2")) - Number(!b.startsWith("2")));
  return responses.flatMap(([code, reference]): Answer[] => {
    const status = Number(code);
    if (!Number.isInteger(status)) return [];
    const response = resolve(document, reference, name);
    const content = Object.entries((response.content ?? {}) as Record<string, Node>);
    const [mediaType, media] = content.find(([type]) => JSON_TYPE.test(type)) ?? [];
    if (!mediaType || !media) {
      const label = `${status}, ${String(response.description ?? "no content")}`;
      return [{ id: code, label, status, missing: content.length > 0 || undefined }];
    }
    const examples = Object.entries((media.examples ?? {}) as Record<string, Node>).map(
      ([key, example]) => [key, resolve(document, example, name)] as const,
    );
    if (media.example !== undefined) examples.push(["example", { value: media.example }]);
    if (!examples.length) {
      read.problems.push(`${id}: the ${status} answer has no example`);
      return [{ id: code, label: `${status}, no example`, status, missing: true }];
    }
    const validate = read.bodies.compile(anchor(media.schema ?? {}, name));
    return examples.map(([key, example]) => {
      const off = describe(validate, example.value, "example");
      if (off)
        read.problems.push(`${id}: the ${status} example "${key}" is off its schema, ${off}`);
      const label = `${status}, ${String(example.summary ?? key)}`;
      return { id: `${code}-${key}`, label, status, mediaType, value: example.value };
    });
  });
}

function createAjv(options: { coerceTypes?: "array" }) {
  // Not strict: OpenAPI adds keywords of its own (discriminator, xml, example).
  const ajv = new Ajv2020({ ...options, strict: false, allErrors: false });
  addFormats.default(ajv);
  return ajv;
}

function describe(validate: ValidateFunction, value: unknown, part: string) {
  if (validate(value)) return undefined;
  const [error] = validate.errors as ErrorObject[];
  return `${part}${error!.instancePath.replaceAll("/", ".")}: ${error!.message}`;
}

/** An object the document refers to (`$ref: "#/components/…"`), followed to its end. */
function resolve(document: Node, node: unknown, name: string): Node {
  for (let hops = 0; hops < 32; hops++) {
    const ref = (node as Node | undefined)?.$ref;
    if (typeof ref !== "string") return (node ?? {}) as Node;
    if (!ref.startsWith("#/")) throw new Error(`${name}: ${ref}: only refs within a document`);
    node = ref
      .slice(2)
      .split("/")
      .map((key) => decodeURIComponent(key).replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>((at, key) => (at as Node | undefined)?.[key], document);
    if (node === undefined) throw new Error(`${name}: ${ref} is not in the document`);
  }
  throw new Error(`${name}: refs in a loop`);
}

// A schema taken out of its document, its refs still pointing into it.
function anchor(schema: unknown, name: string): Node {
  return anchored(schema, name) as Node;
}

function anchored(schema: unknown, name: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => anchored(item, name));
  if (!schema || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) =>
      key === "$ref" && typeof value === "string" && value.startsWith("#")
        ? [key, `contract:${name}${value}`]
        : [key, anchored(value, name)],
    ),
  );
}
