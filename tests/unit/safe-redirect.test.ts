import { describe, expect, it } from "vitest";
import { getSafeRedirect } from "~/lib/safe-redirect";

describe("getSafeRedirect", () => {
  it.each(["/", "/settings", "/a/b?c=1&d=2", "/search?q=caf%C3%A9", "/page#section", "/a%2Bb"])(
    "follows the site path %s",
    (path) => {
      expect(getSafeRedirect(path)).toBe(path);
    },
  );

  it.each([
    ["an absolute URL", "https://evil.example/"],
    ["an absolute http URL", "http://evil.example"],
    ["a protocol-relative URL", "//evil.example"],
    ["a protocol-relative URL with a path", "//evil.example/path"],
    ["a slash and a backslash", "/\\evil.example"],
    ["two backslashes", "\\\\evil.example"],
    ["a backslash in the path", "/a\\..\\..\\evil.example"],
    ["a javascript: URL", "javascript:alert(1)"],
    ["a data: URL", "data:text/html,<script>alert(1)</script>"],
    ["a relative path", "settings"],
    ["a percent-encoded slash", "/%2Fevil.example"],
    ["a percent-encoded backslash", "/%5Cevil.example"],
    ["a percent-encoded tab", "/%09/evil.example"],
    ["a percent-encoded newline", "/%0a/evil.example"],
    ["a leading space", " /settings"],
    ["a tab after the slash", "/\t/evil.example"],
    ["a newline after the slash", "/\n/evil.example"],
    ["a carriage return", "/\r/evil.example"],
    ["a NUL byte", "/\u0000/evil.example"],
    ["DEL", "/\u007f/evil.example"],
    ["a non-breaking space", "/\u00a0/evil.example"],
    ["an empty string", ""],
  ])("falls back for %s", (_name, value) => {
    expect(getSafeRedirect(value)).toBe("/");
  });

  it.each([undefined, null, 42, ["/a", "/b"]])("falls back for the non-string %j", (value) => {
    expect(getSafeRedirect(value)).toBe("/");
  });

  it("uses the fallback it is given", () => {
    expect(getSafeRedirect("//evil.example", "/home")).toBe("/home");
  });
});

describe("getSafeRedirect's normalisation", () => {
  it.each([
    ["/\u3002/evil.example", "/%E3%80%82/evil.example"],
    ["/\uff0f\uff0fevil.example", "/%EF%BC%8F%EF%BC%8Fevil.example"],
    ["/\u{1f600}", "/%F0%9F%98%80"],
    ["/caf\u00e9", "/caf%C3%A9"],
    ["/a/../b", "/b"],
    ["/..//evil.example", "/evil.example"],
    ["/a//b?c=//d", "/a/b?c=//d"],
    [`/${"a".repeat(2_047)}`, `/${"a".repeat(2_047)}`],
    [`/${"a".repeat(2_048)}`, "/"],
    [`/${"\u00e9".repeat(400)}`, "/"],
  ])("turns %j into %j", (to, expected) => {
    expect(getSafeRedirect(to)).toBe(expected);
  });
});
