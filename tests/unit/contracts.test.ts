import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateContractTypes } from "../../server/api-mock/contract-types";
import { readContracts } from "../../server/api-mock/contracts";

const root = path.resolve(import.meta.dirname, "../..");
const APP = path.join(root, "app/api/contracts");
const FEATURE = path.join(root, "tests/fixtures/reference-app/app/api/contracts");

// The API contracts (app/api/contracts/): what the calls are checked against and the mock answers.
describe("the contracts", () => {
  it.each([APP, FEATURE])("in %s have their types generated as they are now", async (dir) => {
    const stale = (await generateContractTypes(dir)).filter((types) => !types.fresh);
    expect(stale.map(({ file }) => `${file}: run npm run contracts`)).toEqual([]);
  });

  it("of the reference feature answer every operation from an example true to its schema", () => {
    const { operations, problems } = readContracts(FEATURE);
    expect(problems).toEqual([]);
    expect(operations).toHaveLength(10);
    for (const operation of operations) expect(operation.answers[0]!.status).toBeLessThan(300);
  });

  it("of the app are a stub with no operation yet", () => {
    expect(readContracts(APP)).toEqual({ operations: [], problems: [] });
  });
});
