import { describe, expect, it } from "vitest";
import { formMessage, problemDetails } from "~/api/client.server";

// An API's refusal read into the form's errors by field name, "" for the form's own messages.
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
      "": ["too many requests today", "whole document"],
      age: ["must be a positive integer"],
      "profile.color": ["must be 'green', 'red' or 'blue'"],
      "items[0].name": ["is taken"],
    });
  });

  it.each([
    [{ title: "Not valid", detail: "The order is closed." }, { "": ["The order is closed."] }],
    [{ title: "Not valid" }, { "": ["Not valid"] }],
    [{ errors: [{ detail: "is taken", pointer: "#/display_name" }] }, { name: ["is taken"] }],
  ])("reads %j: the detail, else the title, or a field renamed", (body, errors) => {
    expect(problemDetails({}, { fields: { display_name: "name" } })(body)).toEqual(errors);
  });

  it("says the message key the call gives a pointer, and the API's own words elsewhere", () => {
    const keyed = problemDetails({
      "/age": "forms.invalid",
      "": "errors.VALIDATION_FAILED.message",
    });
    const errors = [
      { detail: "must be a positive integer", pointer: "#/age" },
      { detail: "must be 'green', 'red' or 'blue'", pointer: "#/color" },
      { detail: "too many requests today" },
    ];
    expect(keyed({ errors })).toEqual({
      "": ["errors.VALIDATION_FAILED.message"],
      age: ["forms.invalid"],
      color: ["must be 'green', 'red' or 'blue'"],
    });
    expect(keyed({ title: "Not valid" })).toEqual({ "": ["errors.VALIDATION_FAILED.message"] });
    const renamed = problemDetails(
      { "#/display_name": "forms.invalid" },
      { fields: { display_name: "name" } },
    );
    expect(renamed({ errors: [{ detail: "is taken", pointer: "/display_name" }] })).toEqual({
      name: ["forms.invalid"],
    });
  });

  it.each([[undefined], ["not json"], [{}], [{ errors: [{ pointer: "#/a" }] }], [[1, 2]]])(
    "cannot read %j, so the call's other mapping (or a 502) applies",
    (body) => {
      expect(read(body)).toBeUndefined();
    },
  );

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
  ])("the JSON pointer %j names the field %j (none: the form)", (pointer, name) => {
    expect(read({ errors: [{ detail: "wrong", pointer }] })).toEqual({ [name]: ["wrong"] });
  });
});

describe("formMessage", () => {
  it("answers with its message whatever the body", () => {
    const read = formMessage("errors.NOT_CHANGED.message");
    expect(read()).toEqual({ "": ["errors.NOT_CHANGED.message"] });
  });
});
