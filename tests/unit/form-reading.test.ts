import { describe, expect, it } from "vitest";
import { z } from "zod";
import { getFieldAllowance } from "~/forms/field-allowance.server";
import { countFields, parseSubmission } from "~/forms/parse-submission.server";

const Node: z.ZodType<{ name: string; children?: unknown[] }> = z.lazy(() =>
  z.object({ name: z.string(), children: z.array(Node).max(3).optional() }),
);

const Schema = z.object({
  title: z.string().min(1),
  tags: z.array(z.string()).max(5).optional(),
  notes: z.array(z.string()),
  pair: z.tuple([z.string(), z.string()]),
  address: z.object({ street: z.string(), lines: z.array(z.string()).length(2) }).optional(),
  choice: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]),
  labels: z.record(z.string(), z.string()),
  count: z.string().pipe(z.coerce.number()).catch(0),
  picked: z.preprocess((value) => value, z.array(z.string()).max(4)),
  tree: Node,
});

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
    ["constructor", "constructor", 0],
    ["bad syntax", "a..b]", 0],
    ["the empty name", "", 0],
    ["a path of 16 segments", `tree${".children[0]".repeat(8)}.name`, 0],
    ["a name over 1,000 characters", `title${" ".repeat(1_000)}`, 0],
  ])("%s (%s) may come %i times", (_case, name, allowance) => {
    expect(getFieldAllowance(Schema, name, 100)).toBe(allowance);
  });
});

describe("countFields", () => {
  it.each([
    ["", 0],
    ["a=1", 1],
    ["a=1&b=2", 2],
    ["&&a=1&&&b&", 2],
    ["=", 1],
    ["&".repeat(10_000), 0],
  ])("counts %j as %i fields", (body, count) => {
    expect(countFields(body, 1_000)).toBe(count);
  });

  it("stops counting past the limit", () => {
    expect(countFields("a&".repeat(1_000_000), 10)).toBe(11);
  });
});

describe("parseSubmission", () => {
  const ListSchema = z.object({ tags: z.array(z.string()).max(3) });
  const post = (body: string) =>
    new Request("http://app.example/", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body,
    });
  const statusOf = (promise: Promise<unknown>) =>
    promise.then(
      () => "parsed",
      (error: unknown) => (error instanceof Response ? error.status : "threw"),
    );

  it("reads a list up to its .max()", async () => {
    const submission = await parseSubmission(post("tags=a&tags=b&tags=c&other=1"), ListSchema);
    expect(submission.status).toBe("success");
    expect(submission.status === "success" && submission.value).toEqual({ tags: ["a", "b", "c"] });
  });

  it("refuses a list repeated past its .max() with 400", async () => {
    expect(await statusOf(parseSubmission(post("tags=a&tags=b&tags=c&tags=d"), ListSchema))).toBe(400);
  });

  it("refuses more fields than FORM_MAX_FIELDS with 413 before reading them", async () => {
    expect(await statusOf(parseSubmission(post("x=1&".repeat(1_001)), ListSchema))).toBe(413);
  });

  it("refuses an intent that makes a list longer than any form has", async () => {
    const intent = encodeURIComponent(
      JSON.stringify({ type: "update", payload: { name: "tags", index: 5_000, value: "x" } }),
    );
    expect(await statusOf(parseSubmission(post(`tags=a&__intent__=${intent}`), ListSchema))).toBe(400);
  });

  it("applies a well-formed intent", async () => {
    const intent = encodeURIComponent(JSON.stringify({ type: "insert", payload: { name: "tags" } }));
    const submission = await parseSubmission(post(`tags=a&tags=b&__intent__=${intent}`), ListSchema);
    expect(submission.payload).toEqual({ tags: ["a", "b", undefined] });
  });
});
