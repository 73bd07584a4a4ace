import { describe, expect, it } from "vitest";
import { formMessage, problemDetails } from "~/api/client.server";

describe("problemDetails", () => {
  const read = problemDetails();

  it("puts each error on the field its JSON pointer names, and the rest on the form", () => {
    expect(
      read({
        type: "https://example.net/validation-error",
        title: "Your request is not valid.",
        errors: [
          { detail: "must be a positive integer", pointer: "#/age" },
          { detail: "must be 'green', 'red' or 'blue'", pointer: "#/profile/color" },
          { detail: "is taken", pointer: "/items/0/name" },
          { detail: "too many requests today" },
          { detail: "whole document", pointer: "#" },
        ],
      }),
    ).toEqual({
      formErrors: ["too many requests today", "whole document"],
      fieldErrors: {
        age: ["must be a positive integer"],
        "profile.color": ["must be 'green', 'red' or 'blue'"],
        "items[0].name": ["is taken"],
      },
    });
  });

  it("shows the detail, else the title, when there is no list of errors", () => {
    expect(read({ title: "Not valid", detail: "The order is closed." })).toEqual({
      formErrors: ["The order is closed."],
      fieldErrors: {},
    });
    expect(read({ title: "Not valid" })).toEqual({ formErrors: ["Not valid"], fieldErrors: {} });
  });

  it("renames the API's field names to the form's", () => {
    const renamed = problemDetails({ fields: { display_name: "name" } });
    expect(renamed({ errors: [{ detail: "is taken", pointer: "#/display_name" }] })).toEqual({
      formErrors: [],
      fieldErrors: { name: ["is taken"] },
    });
  });

  it.each([[undefined], ["not json"], [{}], [{ errors: [{ pointer: "#/a" }] }], [[1, 2]]])(
    "cannot read %j, so the call's other mapping (or a 502) applies",
    (body) => {
      expect(read(body)).toBeUndefined();
    },
  );
});

describe("a JSON pointer", () => {
  const read = problemDetails();

  it.each([
    ["#/name", "name"],
    ["/name", "name"],
    ["#/a~1b/c~0d", "a/b.c~d"],
    ["#/first%20name", "first name"],
    ["#/tags/10", "tags[10]"],
    ["#/tags/01", "tags.01"],
    ["#", ""],
    ["", ""],
    ["name", ""],
    ["#/%E0%A4%A", ""],
  ])("%j names the field %j (none: the form)", (pointer, name) => {
    const reply = read({ errors: [{ detail: "wrong", pointer }] });
    expect(reply).toEqual(
      name
        ? { formErrors: [], fieldErrors: { [name]: ["wrong"] } }
        : { formErrors: ["wrong"], fieldErrors: {} },
    );
  });
});

describe("formMessage", () => {
  it("answers with its message whatever the body", () => {
    expect(formMessage("Someone else changed it.")(undefined)).toEqual({
      formErrors: ["Someone else changed it."],
      fieldErrors: {},
    });
  });
});
