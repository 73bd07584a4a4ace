import type { Call, CallOptions, Check, Contract, OperationName, OperationOf } from "./call";
import { createValidator, FORM_TYPE, JSON_TYPE, readOperations } from "./openapi.server";
import type { Media } from "./openapi.server";

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
  const { body, responses } = operation;
  for (const status of Object.keys({ ...options.errors, ...options.formErrors })) {
    if (!responses.some((response) => response.status === status))
      throw new Error(`${name}: ${status} is not an answer in the contract`);
  }
  let compile = compilers.get(contract);
  if (!compile)
    compilers.set(contract, (compile = createValidator(contract, { useDefaults: true })));
  const [type, media] = findType(body?.types, FORM_TYPE) ?? [];
  const answers = responses.filter(({ status }) => status.startsWith("2"));
  return {
    name: operation.id,
    method: operation.method as Call["method"],
    path: operation.path as Call["path"],
    ...options,
    checks: {
      params: compile(operation.params),
      query: compile(operation.query),
      body: media && { type: type!, required: body!.required, check: compile(media.schema) },
      answers: Object.fromEntries(
        answers.map(({ status, types }) => {
          const json = findType(types)?.[1];
          return [status, json ? compile(json.schema) : isEmpty];
        }),
      ),
    },
  };
}
