import { Ajv2020, type Options } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Check } from "./call";

// An API contract (OpenAPI 3.1, copied to JSON by `npm run contracts`) read into its operations,
// for the calls that make them and for the mock that answers them. Each schema is a `$ref` into
// the document, which ajv, given the document whole, resolves (decision 027).

type Node = Record<string, unknown>;
export type Media = { schema: object; examples: [string, Node][] };
type Located = [Node, string];

export type Operation = {
  id: string;
  method: string;
  /** As the contract writes it, `/things/{id}`. */
  path: string;
  secured: boolean;
  /** The path parameters, and the query's, each as one object schema. */
  params: object;
  query: object;
  body?: { required: boolean; types: Record<string, Media> };
  responses: { status: string; description: string; types: Record<string, Media> }[];
};

const VERBS = ["get", "put", "post", "delete", "patch", "head", "options"];
export const JSON_TYPE = /^application\/([\w.+-]+\+)?json$/;
export const FORM_TYPE = "application/x-www-form-urlencoded";
const toKey = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
const pointer = (keys: string[]) =>
  keys.map((key) => `/${encodeURIComponent(toKey(key))}`).join("");

// An object and where it is (`contract#/…`): one of OpenAPI's own (a parameter, a response) may be
// a reference, a JSON pointer into the document.
function follow(root: Node, node: unknown, at: string): Located {
  const ref = (node as Node).$ref;
  if (typeof ref !== "string") return [node as Node, at];
  const keys = ref.split("/").slice(1).map(decodeURIComponent);
  const path = keys.map((key) => key.replaceAll("~1", "/").replaceAll("~0", "~"));
  const found = path.reduce<unknown>((node, key) => (node as Node | undefined)?.[key], root);
  if (!ref.startsWith("#/") || found === undefined) throw new Error(`${ref}: not in the document`);
  return follow(root, found, `contract#${pointer(path)}`);
}

function readMedia(root: Node, [{ content = {} }, at]: Located) {
  const types = Object.entries(content as Record<string, Node>);
  return Object.fromEntries(
    types.map(([type, { example, examples = {} }]): [string, Media] => {
      const named = Object.entries(examples as Node);
      const found = named.map(([key, value]): [string, Node] => [key, follow(root, value, "")[0]]);
      if (example !== undefined) found.push(["example", { value: example }]);
      const schema = { $ref: `${at}/content${pointer([type])}/schema` };
      return [type, { schema, examples: found }];
    }),
  );
}

/** Every operation of an OpenAPI 3.1 document. */
export function readOperations(document: object): Operation[] {
  const root = document as Node;
  if (!String(root.openapi).startsWith("3.1")) throw new Error("not an OpenAPI 3.1 document");
  return Object.entries((root.paths ?? {}) as Node).flatMap(([path, reference]) => {
    const [item, itemAt] = follow(root, reference, `contract#${pointer(["paths", path])}`);
    return VERBS.filter((verb) => item[verb]).map((verb) => {
      const at = `${itemAt}/${verb}`;
      const operation = item[verb] as Node;
      const parameters = [...list(item.parameters, itemAt), ...list(operation.parameters, at)];
      const inPlace = (place: string) => {
        const named = parameters.filter(([parameter]) => parameter.in === place);
        const properties = named.map(([p, pAt]) => [p.name, { $ref: `${pAt}/schema` }]);
        const required = named.filter(([p]) => p.required).map(([p]) => p.name);
        const schema = { properties: Object.fromEntries(properties), required };
        return { type: "object", ...schema, additionalProperties: false };
      };
      const body = operation.requestBody
        ? follow(root, operation.requestBody, `${at}/requestBody`)
        : undefined;
      const responses = Object.entries((operation.responses ?? {}) as Node);
      const security = (operation.security ?? root.security ?? []) as object[];
      return {
        id: String(operation.operationId ?? `${verb.toUpperCase()} ${path}`),
        method: verb.toUpperCase(),
        path,
        secured: security.some((requirement) => Object.keys(requirement).length > 0),
        params: inPlace("path"),
        query: inPlace("query"),
        body: body && { required: body[0].required === true, types: readMedia(root, body) },
        responses: responses.map(([status, answer]) => {
          const response = follow(root, answer, `${at}/responses/${status}`);
          const description = String(response[0].description ?? "");
          return { status, description, types: readMedia(root, response) };
        }),
      };
    });
  });
  function list(parameters: unknown = [], at: string) {
    return (parameters as unknown[]).map((p, i) => follow(root, p, `${at}/parameters/${i}`));
  }
}

/** Compiles the schemas `readOperations` gives of `document`; not strict: OpenAPI adds keywords. */
export function createValidator(document: object, options: Options = {}) {
  const ajv = new Ajv2020({ strict: false, ...options });
  addFormats.default(ajv);
  ajv.addSchema(document, "contract");
  return (schema: object): Check => ajv.compile(schema);
}
