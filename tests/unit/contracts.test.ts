import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateContractTypes } from "../../server/api-mock/contract-types";
import { readContracts } from "../../server/api-mock/contracts";

const root = path.resolve(import.meta.dirname, "../..");

// The API contracts of the app and of every feature the reference app adds beside it, whatever
// they hold: what the calls are checked against and the mock answers (app/api/contracts/).
describe.each(["app", "tests/fixtures/reference-app/app"])("the contracts in %s", (dir) => {
  const contracts = path.join(root, dir, "api/contracts");

  it("have their types generated as they are now", async () => {
    const stale = (await generateContractTypes(contracts)).filter((types) => !types.fresh);
    expect(stale.map(({ file }) => `${file}: run npm run contracts`)).toEqual([]);
  });

  it("give every answer of every operation a named example true to its schema, a success first", () => {
    const { operations, problems } = readContracts(contracts);
    const missing = operations.flatMap(({ id, answers }) =>
      answers.filter((answer) => answer.missing).map((answer) => `${id}: ${answer.label}`),
    );
    expect([...problems, ...missing]).toEqual([]);
    for (const { id, answers } of operations) expect(answers[0]!.status, id).toBeLessThan(300);
  });
});
