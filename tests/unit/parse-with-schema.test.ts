import { describe, expect, it } from "vitest";
import { z as classic } from "zod";
import * as z from "zod/mini";
import { parseWithSchema } from "~/forms/parse-with-schema";

const form = (entries: [string, string][]) => new URLSearchParams(entries);

describe("parseWithSchema", () => {
  const Schema = z.object({
    name: z.string({ error: "Enter a name." }),
    count: z.optional(z.number({ error: "Enter a number." })),
    urgent: z._default(z.boolean({ error: "Tick it or leave it." }), false),
    tags: z.array(z.string()),
    address: z.object({ town: z.string({ error: "Enter a town." }) }),
  });

  it("trims text, reads numbers and checkboxes, and collects repeated and nested names", () => {
    const submission = parseWithSchema(
      form([
        ["name", "  Ada  "],
        ["count", " 12 "],
        ["urgent", "on"],
        ["tags", "a"],
        ["tags", " "],
        ["tags", "b"],
        ["address.town", " Leeds"],
      ]),
      Schema,
    );
    expect(submission.status).toBe("success");
    expect(submission.status === "success" && submission.value).toEqual({
      name: "Ada",
      count: 12,
      urgent: true,
      tags: ["a", "b"],
      address: { town: "Leeds" },
    });
  });

  it("treats blank text as missing and leaves unreadable values to the schema's messages", () => {
    const submission = parseWithSchema(
      form([
        ["name", "   "],
        ["count", "twelve"],
        ["urgent", "yes"],
      ]),
      Schema,
    );
    expect(submission.status).toBe("error");
    expect(submission.status === "error" && submission.error).toEqual({
      name: ["Enter a name."],
      count: ["Enter a number."],
      urgent: ["Tick it or leave it."],
      "address.town": ["Enter a town."],
    });
  });

  it("parses classic Zod schemas the same way, for forms validated on the server only", () => {
    const submission = parseWithSchema(
      form([["theme", " dark "]]),
      classic.object({ theme: classic.enum(["light", "dark"]), redirectTo: classic.string().optional() }),
    );
    expect(submission.status === "success" && submission.value).toEqual({ theme: "dark" });
  });
});

describe("numbers in a form", () => {
  const Schema = z.object({ count: z.int({ error: "Enter a whole number." }) });
  const read = (text: string) => {
    const submission = parseWithSchema(form([["count", text]]), Schema);
    return submission.status === "success" ? submission.value.count : submission.error?.count;
  };

  it.each([
    [" 12 ", 12],
    ["-3", -3],
    ["-0", 0],
    ["007", 7],
  ])("reads %j as %j: decimal digits, an optional minus, spaces trimmed", (text, number) => {
    expect(Object.is(read(text), number)).toBe(true);
  });

  it.each(["0x10", "0b11", "0o7", "1e3", "+5", "١٢", "Infinity", "1".repeat(400), "1,000", "12 000", "1.5"])(
    "refuses %j: only decimal digits are a whole number",
    (text) => {
      expect(read(text)).toEqual(["Enter a whole number."]);
    },
  );

  it("reads decimals for a number that need not be whole", () => {
    const submission = parseWithSchema(form([["price", "2.50"]]), z.object({ price: z.number() }));
    expect(submission.status === "success" && submission.value).toEqual({ price: 2.5 });
  });
});
