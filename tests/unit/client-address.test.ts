import { describe, expect, it } from "vitest";
import { normaliseAddress } from "../../server/edge/rate-limit";

describe("normaliseAddress", () => {
  it.each([
    ["198.51.100.9", "198.51.100.9"],
    ["198.51.100.9:4711", "198.51.100.9"],
    [" 198.51.100.9:1 ", "198.51.100.9"],
    ["::ffff:198.51.100.9", "198.51.100.9"],
    ["::FFFF:198.51.100.9", "198.51.100.9"],
    ["[::ffff:198.51.100.9]:80", "198.51.100.9"],
    ["2001:db8::1", "2001:db8::1"],
    ["2001:DB8::1", "2001:db8::1"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["[2001:db8::1]:443", "2001:db8::1"],
    ["[::1]:80", "::1"],
  ])("reads %j as %s", (value, address) => {
    expect(normaliseAddress(value)).toBe(address);
  });

  it.each([
    undefined,
    "",
    "unknown",
    "_hidden",
    "198.51.100.9:",
    "198.51.100.9:4711:1",
    "198.51.100.999",
    "[198.51.100.9:80",
    "[2001:db8::1]:",
    "2001:db8::1:80:x",
    "example.com:80",
    "198.51.100.9, 203.0.113.1",
    "x".repeat(10_000),
  ])("finds no address in %j", (value) => {
    expect(normaliseAddress(value)).toBeUndefined();
  });
});
