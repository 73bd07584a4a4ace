import { describe, expect, it } from "vitest";
import { mergeCacheControl } from "~/lib/cache-rules.server";

describe("mergeCacheControl", () => {
  // [the matched routes' rules, root first; the page's rule]
  it.each([
    [["max-age=60", "no-store"], "no-store"],
    [["no-store", "public, max-age=600"], "no-store"],
    [["public, max-age=300", "private, no-cache"], "private, no-cache"],
    [["private, max-age=60", "private, max-age=30"], "private, max-age=30"],
    [["public, max-age=60", "public, max-age=300, s-maxage=600"], "public, max-age=60"],
    [
      ["public, max-age=600, s-maxage=60", "public, max-age=300"],
      "public, max-age=300, s-maxage=60",
    ],
    [["public, max-age=60", "max-age=60"], "max-age=60"],
    [["public, max-age=60", "private, max-age=60, s-maxage=30"], "private, max-age=60"],
    [["public, max-age=60", "public, no-cache"], "public, no-cache"],
    [
      ["public, max-age=60, must-revalidate", "public, max-age=60"],
      "public, max-age=60, must-revalidate",
    ],
    [["public, max-age=31536000, immutable", "public, max-age=60"], "public, max-age=60"],
    [["PUBLIC, Max-Age=60", 'public, max-age="30"'], "public, max-age=30"],
    [["public, max-age=soon", "public, max-age=60"], "public, no-cache"],
    [
      ["public, max-age=60, stale-while-revalidate=600", "public, max-age=60"],
      "public, max-age=60",
    ],
    [[], "private, no-cache"],
  ])("%j gives %s", (rules, merged) => {
    expect(mergeCacheControl(rules)).toBe(merged);
  });

  it("is never looser than any of the rules it merges, whatever their order", () => {
    const rules = ["public, max-age=300", "private, max-age=60", "no-store", "public, s-maxage=10"];
    for (const rule of rules) {
      expect(mergeCacheControl([rule, ...rules.filter((other) => other !== rule)])).toBe(
        "no-store",
      );
    }
    expect(mergeCacheControl(["private, max-age=60", "public, max-age=300"])).toBe(
      mergeCacheControl(["public, max-age=300", "private, max-age=60"]),
    );
  });
});
