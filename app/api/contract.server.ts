import type { Call, CallOptions, Check, Contract, OperationName, OperationOf } from "./call";
import { createValidator, FORM_TYPE, JSON_TYPE, readOperations } from "./openapi.server";
import type { Media, Operation } from "./openapi.server";

const compilers = new WeakMap<object, ReturnType<typeof createValidator>>();
const isEmpty: Check = Object.assign((value: unknown) => value === undefined, {
  errors: [{ instancePath: "", message: "must be empty, as the contract has no content" }],
});
const findType = (types: Record<string, Media> = {}, other = "") =>
  Object.entries(types).find(([type]) => JSON_TYPE.test(type) || type === other);

/**
 * Declares a call of the operation `name` ("GET /things/{id}") of `contract` with what the
 * contract cannot say: what it sends and reads, and their types, are the contract's.
 */
export function defineCall<Paths, Name extends OperationName<Paths>>(
  contract: Contract<Paths>,
  name: Name,
  options: CallOptions<OperationOf<Paths, Name>> = {},
): Call<OperationOf<Paths, Name>> {
  const operation = readOperations(contract).find((o) => `${o.method} ${o.path}` === name);
  if (!operation) throw new Error(`${name}: not in the contract`);
  for (const status of Object.keys({ ...options.errors, ...options.formErrors })) {
    if (!operation.responses.some((response) => response.status === status))
      throw new Error(`${name}: ${status} is not an answer in the contract`);
  }
  let checks: Call["checks"];
  return {
    name: operation.id,
    method: operation.method as Call["method"],
    path: operation.path as Call["path"],
    ...options,
    // Compiled at the first call, so that a start does not compile what it may never call.
    get checks() {
      return (checks ??= compileChecks(contract, operation));
    },
  };
}

function compileChecks(contract: object, { params, query, body, responses }: Operation) {
  let compile = compilers.get(contract);
  if (!compile)
    compilers.set(contract, (compile = createValidator(contract, { useDefaults: true })));
  const [type, media] = findType(body?.types, FORM_TYPE) ?? [];
  const answers = responses
    .filter(({ status }) => status.startsWith("2"))
    .map(({ status, types }) => [status, findType(types)?.[1]] as const);
  return {
    params: compile(params),
    query: compile(query),
    body: media && { type: type!, required: body!.required, check: compile(media.schema) },
    answers: Object.fromEntries(
      answers.map(([status, json]) => [status, json ? compile(json.schema) : isEmpty]),
    ),
  };
}
