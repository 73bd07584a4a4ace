import { describe, expect, it } from "vitest";
import { isNestedDeeperThan, MAX_JSON_DEPTH } from "~/api/read-response.server";

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("isNestedDeeperThan", () => {
  it.each([
    ["flat values", '{"a":1,"b":"x","c":null}', 1, false],
    ["exactly the limit", nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH, false],
    ["one past the limit", nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH, true],
    ["objects and arrays mixed", '{"a":[{"b":[1]}]}', 3, true],
    ["siblings, which do not add up", "[[],[],[],[]]", 2, false],
    ["brackets inside strings", '["[[[[{{{{"]', 1, false],
    ["an escaped quote inside a string", '["\\"[[[[", []]', 1, true],
    ["an escaped backslash before the closing quote", '["\\\\", [[]]]', 2, true],
    ["100,000 deep", nested(100_000), MAX_JSON_DEPTH, true],
  ])("%s", (_case, text, max, deeper) => {
    expect(isNestedDeeperThan(text, max)).toBe(deeper);
  });
});
