import { describe, expect, it } from "vitest";
import { createRetryBudget, getRetryDelay, parseRetryAfter } from "~/api/retry-policy.server";

const now = Date.parse("2026-11-23T12:00:00Z");

describe("parseRetryAfter", () => {
  it.each([
    ["120", 120_000],
    [" 5 ", 5_000],
    ["0", 0],
    ["Mon, 23 Nov 2026 12:00:30 GMT", 30_000],
    ["Mon, 23 Nov 2026 11:00:00 GMT", 0],
    ["9".repeat(400), Infinity],
  ])("reads %j as %d ms", (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it.each([undefined, "", "-1", "1.5", "1e3", "soon", "Someday, 99 Foo 2026"])("ignores %j", (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe("getRetryDelay", () => {
  it("doubles with each retry, drawn at random from the upper half", () => {
    const first = Array.from({ length: 1_000 }, () => getRetryDelay(1));
    const second = Array.from({ length: 1_000 }, () => getRetryDelay(2));
    expect(Math.min(...first)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...first)).toBeLessThanOrEqual(100);
    expect(Math.min(...second)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...second)).toBeLessThanOrEqual(200);
    expect(new Set(first.map(Math.round)).size).toBeGreaterThan(40);
  });

  it("waits as long as Retry-After asks when that is longer", () => {
    expect(getRetryDelay(1, "2", now)).toBe(2_000);
    expect(getRetryDelay(1, "0", now)).toBeLessThanOrEqual(100);
  });
});

describe("createRetryBudget", () => {
  it("spends what it saved, then one retry for every ten calls", () => {
    const budget = createRetryBudget({ max: 3 });
    expect([budget.spend(), budget.spend(), budget.spend(), budget.spend()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    for (let call = 0; call < 9; call++) budget.earn();
    expect(budget.spend()).toBe(false);
    budget.earn();
    expect(budget.spend()).toBe(true);
  });

  it("saves no more than its maximum", () => {
    const budget = createRetryBudget({ max: 2 });
    for (let call = 0; call < 1_000; call++) budget.earn();
    expect([budget.spend(), budget.spend(), budget.spend()]).toEqual([true, true, false]);
  });
});
