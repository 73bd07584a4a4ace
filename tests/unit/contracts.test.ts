import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CallInput } from "~/api/call";
import { defineCall } from "~/api/contract.server";
import { generateContractFiles } from "../../server/api-mock/contract-types";
import { readContracts } from "../../server/api-mock/contracts";
import { getConstrained, getThing, sendNote } from "../support/fault-routes/calls.server";
import faults from "../support/fault-routes/faults.json";

const root = path.resolve(import.meta.dirname, "../..");

const expectFresh = async (dir: string) => {
  const stale = (await generateContractFiles(dir)).filter((file) => !file.fresh);
  expect(stale.map(({ file }) => `${file}: run npm run contracts`)).toEqual([]);
};

// The API contracts of the app and of every feature the reference app adds beside it, whatever
// they hold: what the calls are made from and the mock answers (app/api/contracts/).
describe.each(["app", "tests/fixtures/reference-app/app"])("the contracts in %s", (dir) => {
  const contracts = path.join(root, dir, "api/contracts");

  it("have their JSON copies and types generated as they are now", () => expectFresh(contracts));

  it("give every answer of every operation a named example true to its schema, a success first", () => {
    const { operations, problems } = readContracts(contracts);
    const missing = operations.flatMap(({ id, answers }) =>
      answers.filter((answer) => answer.missing).map((answer) => `${id}: ${answer.label}`),
    );
    expect([...problems, ...missing]).toEqual([]);
    for (const { id, answers } of operations) expect(answers[0]!.status, id).toBeLessThan(300);
  });
});

it("the failure tests' contract has its JSON copy and types generated as it is now", () =>
  expectFresh(path.join(root, "tests/support/fault-routes")));

// Each `@ts-expect-error` below is a type error `npm run typecheck` requires, naming what the
// contract does not have; the same declarations are refused when the server starts.
describe("a call declared from its contract", () => {
  it.each([
    // @ts-expect-error: "GET /thingz" is not a path of the contract.
    () => defineCall(faults, "GET /thingz"),
    // @ts-expect-error: the contract has no PATCH on /things.
    () => defineCall(faults, "PATCH /things"),
    // @ts-expect-error: 418 is not an answer of GET /things/{id}.
    () => defineCall(faults, "GET /things/{id}", { errors: { 418: "NOT_FOUND" } }),
  ])("is refused when the contract does not have it (%#)", (declare) => {
    expect(declare).toThrow(/: not in the contract|418 is not an answer in the contract/);
  });

  it("takes only the fields its contract has, typed as it types them", () => {
    const input = <C>(_call: C, value: CallInput<C>) => value;
    expect(input(getThing, { params: { id: "1" }, query: { tag: ["a"] } })).toBeDefined();
    // @ts-expect-error: `nope` is not a query parameter of GET /things/{id}.
    input(getThing, { params: { id: "1" }, query: { nope: "x" } });
    // @ts-expect-error: the body's `notes` is not a field of PUT /things/{id}/note.
    input(sendNote, { params: { id: "1" }, body: { note: "x", notes: "x" } });
    // @ts-expect-error: `page` is required by GET /constrained, an integer.
    input(getConstrained, { query: { page: "1" } });
    // @ts-expect-error: GET /things/{id} takes no body.
    input(getThing, { params: { id: "1" }, body: {} });
  });
});
