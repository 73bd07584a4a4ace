import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { parseSearchParams } from "~/forms/parse-search-params";

const SearchSchema = z.object({
  q: z.optional(z.string().check(z.maxLength(10))),
  status: z.optional(z.enum(["open", "closed"])),
  page: z.catch(z.int().check(z.gte(1)), 1),
});

const parse = (search: string) =>
  parseSearchParams(new Request(`http://app.test/list${search}`), SearchSchema);

async function statusOf(search: string) {
  try {
    parse(search);
  } catch (error) {
    return (error as Response).status;
  }
  return 200;
}

describe("parseSearchParams", () => {
  it("reads the schema's names from the address, trimmed, with numbers from their text", () => {
    expect(parse("?q=%20pine%20&status=open&page=3&utm_source=mail")).toEqual({
      q: "pine",
      status: "open",
      page: 3,
    });
  });

  it("treats empty values as missing and lets a field fall back where its schema says so", () => {
    expect(parse("?q=&status=&page=")).toEqual({ page: 1 });
    expect(parse("?page=0")).toEqual({ page: 1 });
    expect(parse("?page=abc")).toEqual({ page: 1 });
    expect(parse("?page=0x10")).toEqual({ page: 1 });
  });

  it.each(["?status=gone", "?q=far+too+long+a+search", "?q=a&q=b", "?status=open&status=closed"])(
    "refuses %s with a 400 response",
    async (search) => {
      expect(await statusOf(search)).toBe(400);
    },
  );
});
