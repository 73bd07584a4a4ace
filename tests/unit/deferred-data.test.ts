import type { EntryContext } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { hasDeferredData } from "~/lib/deferred-data.server";

type StaticHandlerContext = EntryContext["staticHandlerContext"];

function context(loaderData: Record<string, unknown>, extra: Partial<StaticHandlerContext> = {}) {
  return { loaderData, actionData: null, activeDeferreds: null, ...extra } as StaticHandlerContext;
}

const pending = () => new Promise(() => {});

describe("hasDeferredData", () => {
  it.each<[string, Record<string, unknown>]>([
    ["no loaders", {}],
    ["loaders returning nothing", { root: null, "routes/_site": undefined }],
    ["plain values", { root: { theme: "dark", flash: null, list: [1, "a", { b: [true] }] } }],
    [
      "class instances, which are not walked",
      { root: { at: new Date(), url: new URL("http://x/") } },
    ],
  ])("is false for %s", (_case, loaderData) => {
    expect(hasDeferredData(context(loaderData))).toBe(false);
  });

  it.each<[string, Record<string, unknown>]>([
    ["a promise returned by a loader", { "routes/a": pending() }],
    ["a promise in a field", { "routes/a": { later: pending() } }],
    [
      "a promise deep in arrays and objects",
      { "routes/a": { list: [{ items: [1, { x: pending() }] }] } },
    ],
    ["a promise in a Map", { "routes/a": { byId: new Map([["1", pending()]]) } }],
    ["a promise in a Set", { "routes/a": new Set([pending()]) }],
    ["a thenable", { "routes/a": { later: { then: () => {} } } }],
    ["data too large to walk", { "routes/a": Array.from({ length: 10_000 }, (_, i) => i) }],
  ])("is true for %s", (_case, loaderData) => {
    expect(hasDeferredData(context(loaderData))).toBe(true);
  });

  it("looks into action data too", () => {
    expect(hasDeferredData(context({}, { actionData: { "routes/a": { later: pending() } } }))).toBe(
      true,
    );
  });

  it("is true for a legacy defer()", () => {
    // Only its presence matters here.
    const activeDeferreds = {
      "routes/a": {},
    } as unknown as StaticHandlerContext["activeDeferreds"];
    expect(hasDeferredData(context({}, { activeDeferreds }))).toBe(true);
  });

  it("stops on data that refers to itself", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(hasDeferredData(context({ "routes/a": cyclic }))).toBe(true);
  });
});
