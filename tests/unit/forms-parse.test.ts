import { describe, expect, it } from "vitest";
import { z as classic } from "zod";
import * as z from "zod/mini";
import type { $ZodType } from "zod/v4/core";
import { getFieldAllowance, parseSearchParams, submitForm } from "~/forms/index.server";
import { isLocalDateTime, toInstant, toLocalDateTime } from "~/forms/date-time";
import { checkPayload, toPayload } from "~/forms/parse";

const Node: classic.ZodType<{ name: string; children?: unknown[] }> = classic.lazy(() =>
  classic.object({ name: classic.string(), children: classic.array(Node).max(3).optional() }),
);

const Schema = classic.object({
  title: classic.string().min(1),
  tags: classic.array(classic.string()).max(5).optional(),
  notes: classic.array(classic.string()),
  pair: classic.tuple([classic.string(), classic.string()]),
  address: classic
    .object({ street: classic.string(), lines: classic.array(classic.string()).length(2) })
    .optional(),
  choice: classic.union([
    classic.object({ a: classic.string() }),
    classic.object({ b: classic.string() }),
  ]),
  labels: classic.record(classic.string(), classic.string()),
  count: classic.string().pipe(classic.coerce.number()).catch(0),
  picked: classic.preprocess((value) => value, classic.array(classic.string()).max(4)),
  tree: Node,
});

/** What `submitForm` hands on from a post of `body`, or the status it answers with. */
async function submit(body: string | URLSearchParams, schema: $ZodType) {
  const request = new Request("http://app.example/", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body,
  });
  let received: unknown;
  try {
    await submitForm(request, schema, async (value) => ((received = value), { redirectTo: "/" }));
    return received;
  } catch (error) {
    return error instanceof Response ? error.status : error;
  }
}

describe("getFieldAllowance", () => {
  it.each([
    ["a single value", "title", 1],
    ["a list with .max()", "tags", 5],
    ["a list with []", "tags[]", 5],
    ["a list item", "tags[4]", 1],
    ["a list item past .max()", "tags[5]", 0],
    ["a list without .max()", "notes", 100],
    ["a list item past the default", "notes[100]", 0],
    ["a tuple", "pair", 2],
    ["a tuple item", "pair[1]", 1],
    ["a tuple item past its end", "pair[2]", 0],
    ["a nested field", "address.street", 1],
    ["a nested list of fixed length", "address.lines", 2],
    ["a field of a union's second option", "choice.b", 1],
    ["any key of a record", "labels.anything", 1],
    ["a piped field", "count", 1],
    ["a preprocessed list", "picked", 4],
    ["a field of a recursive schema", "tree.children[2].children[0].name", 1],
    ["an unknown name", "other", 0],
    ["a path under a single value", "title.x", 0],
    ["an index on a single value", "title[0]", 0],
    ["a huge index", "tags[999999999999]", 0],
    ["[] inside a path", "tags[].x", 0],
    ["__proto__", "__proto__.x", 0],
    ["__proto__ as a record's key", "labels.__proto__", 0],
    ["constructor", "constructor", 0],
    ["bad syntax", "a..b]", 0],
    ["the empty name", "", 0],
    ["a path of 16 segments", `tree${".children[0]".repeat(8)}.name`, 0],
    ["a name over 1,000 characters", `title${" ".repeat(1_000)}`, 0],
  ])("%s (%s) may come %i times", (_case, name, allowance) => {
    expect(getFieldAllowance(Schema, name, 100)).toBe(allowance);
  });
});

describe("reading a post", () => {
  const ListSchema = z.object({ tags: z.array(z.string()).check(z.maxLength(3)) });
  const post = (body: string) => submit(body, ListSchema);

  it("reads a list up to its .max(), dropping names the form has no place for", async () => {
    expect(await post("tags=a&tags=b&tags=c&other=1")).toEqual({ tags: ["a", "b", "c"] });
  });

  it.each([
    ["a list repeated past its .max()", "tags=a&tags=b&tags=c&tags=d"],
    ["an unknown name twice", "tags=a&other=1&other=2"],
    ["a form id twice", "tags=a&__form__=a&__form__=b"],
    ["Conform's intent field", `tags=a&__intent__=${encodeURIComponent('{"type":"validate"}')}`],
    ["Conform's state field", "tags=a&__state__={}"],
  ])("refuses %s with 400", async (_case, body) => {
    expect(await post(body)).toBe(400);
  });

  it("refuses more fields than FORM_MAX_FIELDS with 413 before reading them", async () => {
    expect(await post("x=1&".repeat(1_001))).toBe(413);
    expect(await post("a&".repeat(1_000_000))).toBe(413);
  });

  it("does not count empty parts between separators as fields", async () => {
    expect(await post(`${"&".repeat(10_000)}tags=a&&&tags=b&`)).toEqual({ tags: ["a", "b"] });
  });
});

describe("the parse the browser and the action share", () => {
  const FormSchema = z.object({
    name: z.string({ error: "Enter a name." }),
    count: z.optional(z.number({ error: "Enter a number." })),
    urgent: z._default(z.boolean({ error: "Tick it or leave it." }), false),
    tags: z.array(z.string()),
    address: z.object({ town: z.string({ error: "Enter a town." }) }),
  });
  const check = (entries: [string, string][], schema: $ZodType = FormSchema) =>
    checkPayload(schema, toPayload(entries));

  it("trims text, reads numbers and checkboxes, and collects repeated and nested names", async () => {
    const entries: [string, string][] = [
      ["name", "  Ada  "],
      ["count", " 12 "],
      ["urgent", "on"],
      ["tags", "a"],
      ["tags", " "],
      ["tags", "b"],
      ["address.town", " Leeds"],
    ];
    const value = {
      name: "Ada",
      count: 12,
      urgent: true,
      tags: ["a", "b"],
      address: { town: "Leeds" },
    };
    expect(check(entries)).toEqual({ value });
    expect(await submit(new URLSearchParams(entries), FormSchema)).toEqual(value);
  });

  it("treats blank text as missing and leaves unreadable values to the schema's messages", () => {
    const entries: [string, string][] = [
      ["name", "   "],
      ["count", "twelve"],
      ["urgent", "yes"],
    ];
    expect(check(entries).errors).toEqual({
      name: ["Enter a name."],
      count: ["Enter a number."],
      urgent: ["Tick it or leave it."],
      "address.town": ["Enter a town."],
    });
  });

  it("parses classic Zod schemas the same way, for forms checked on the server only", () => {
    const ThemeSchema = classic.object({
      theme: classic.enum(["light", "dark"]),
      to: classic.string().optional(),
    });
    expect(check([["theme", " dark "]], ThemeSchema)).toEqual({ value: { theme: "dark" } });
  });

  describe("numbers", () => {
    const NumberSchema = z.object({ count: z.int({ error: "Enter a whole number." }) });
    const read = (text: string) => {
      const { value, errors } = check([["count", text]], NumberSchema);
      return errors ? errors.count : (value as { count: number }).count;
    };

    it.each([
      [" 12 ", 12],
      ["-3", -3],
      ["-0", 0],
      ["007", 7],
    ])("reads %j as %j: decimal digits, an optional minus, spaces trimmed", (text, number) => {
      expect(Object.is(read(text), number)).toBe(true);
    });

    it.each([
      "0x10",
      "0b11",
      "0o7",
      "1e3",
      "+5",
      "١٢",
      "Infinity",
      "1".repeat(400),
      "1,000",
      "12 000",
      "1.5",
    ])("refuses %j: only decimal digits are a whole number", (text) => {
      expect(read(text)).toEqual(["Enter a whole number."]);
    });

    it("reads decimals for a number that need not be whole", () => {
      expect(check([["price", "2.50"]], z.object({ price: z.number() }))).toEqual({
        value: { price: 2.5 },
      });
    });
  });
});

describe("parseSearchParams", () => {
  const SearchSchema = z.object({
    q: z.optional(z.string().check(z.maxLength(10))),
    status: z.optional(z.enum(["open", "closed"])),
    page: z.catch(z.int().check(z.gte(1)), 1),
  });
  const parse = (search: string) =>
    parseSearchParams(new Request(`http://app.test/list${search}`), SearchSchema);

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
    (search) => {
      let thrown: unknown;
      try {
        parse(search);
      } catch (error) {
        thrown = error;
      }
      expect(thrown instanceof Response && thrown.status).toBe(400);
    },
  );
});

// A `datetime-local` value is a time on the clocks of the TIME_ZONE setting; the API's, an instant.
describe("date-time fields", () => {
  it.each([
    ["2025-06-01T12:00", "UTC", "2025-06-01T12:00:00.000Z", "2025-06-01T12:00"],
    ["2025-06-01T12:00:30", "Asia/Kolkata", "2025-06-01T06:30:30.000Z", "2025-06-01T12:00:30"],
    ["2025-01-15T09:05", "America/New_York", "2025-01-15T14:05:00.000Z", "2025-01-15T09:05"],
    // Clocks skip 02:00 to 03:00: a skipped time is moved on by the gap.
    ["2025-03-30T02:30", "Europe/Berlin", "2025-03-30T01:30:00.000Z", "2025-03-30T03:30"],
    ["2025-03-30T03:00", "Europe/Berlin", "2025-03-30T01:00:00.000Z", "2025-03-30T03:00"],
    ["2025-03-09T02:30", "America/New_York", "2025-03-09T07:30:00.000Z", "2025-03-09T03:30"],
    // Clocks show 02:00 to 03:00 twice: the first of the two.
    ["2025-10-26T02:30", "Europe/Berlin", "2025-10-26T00:30:00.000Z", "2025-10-26T02:30"],
    ["2025-11-02T01:30", "America/New_York", "2025-11-02T05:30:00.000Z", "2025-11-02T01:30"],
    ["2025-10-26T03:00", "Europe/Berlin", "2025-10-26T02:00:00.000Z", "2025-10-26T03:00"],
  ])("reads %s in %s as %s, shown again as %s", (text, zone, instant, shown) => {
    expect(toInstant(text, zone)).toBe(instant);
    expect(toLocalDateTime(instant, zone)).toBe(shown);
  });

  it.each(["2025-02-29T10:00", "2025-04-31T10:00", "2025-06-01T24:00", "2025-06-01T10:60", ""])(
    "refuses %j: no such date and time",
    (text) => {
      expect(isLocalDateTime(text)).toBe(false);
      expect(toInstant(text, "UTC")).toBeUndefined();
    },
  );

  it("shows what was typed as it is, and an instant's seconds only when it has some", () => {
    expect(toLocalDateTime("2025-06-01T10:15", "Europe/Berlin")).toBe("2025-06-01T10:15");
    expect(toLocalDateTime("2025-06-01T10:15:07Z", "Europe/Berlin")).toBe("2025-06-01T12:15:07");
    expect(isLocalDateTime("2024-02-29T10:00")).toBe(true);
  });
});
