import { describe, expect, it } from "vitest";
import { buildCallUrl } from "~/api/define-call";

const base = "https://api.example.com/v1";

describe("buildCallUrl", () => {
  it("fills the path under the base URL and appends the query", () => {
    const url = buildCallUrl(
      base,
      "/things/:id/parts/:part",
      { id: "a b", part: 7 },
      { q: "x&y=z", tag: ["1", "2"] },
    );
    expect(url?.href).toBe("https://api.example.com/v1/things/a%20b/parts/7?q=x%26y%3Dz&tag=1&tag=2");
  });

  it("leaves out query values that are unset", () => {
    expect(buildCallUrl(`${base}/`, "/things", {}, { q: undefined, r: null })?.href).toBe(`${base}/things`);
  });

  it.each([
    ["../admin", "/v1/things/..%2Fadmin"],
    ["a/b", "/v1/things/a%2Fb"],
    ["a?b=c", "/v1/things/a%3Fb%3Dc"],
    ["a#b", "/v1/things/a%23b"],
    ["%2e%2e", "/v1/things/%252e%252e"],
    ["%2F", "/v1/things/%252F"],
  ])("keeps %j inside its own path segment", (id, pathname) => {
    const url = buildCallUrl(base, "/things/:id", { id });
    expect(url?.pathname).toBe(pathname);
    expect(url?.search).toBe("");
    expect(url?.hash).toBe("");
  });

  it.each([[".."], ["."], [""], [undefined], [{ toString: (): string => "x" }]])(
    "refuses %j, which would change the path's shape",
    (id) => {
      expect(buildCallUrl(base, "/things/:id", { id })).toBeNull();
    },
  );
});
