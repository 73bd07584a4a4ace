// @vitest-environment jsdom
import type { ActionFunctionArgs } from "@remix-run/node";
import { Form, useActionData } from "@remix-run/react";
import { createRemixStub } from "@remix-run/testing";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorSummary } from "~/forms/error-summary";
import { getFirstInvalidName } from "~/forms/field-meta";
import { RadioGroupField, SelectField, TextField } from "~/forms/fields";
import { parseSubmission } from "~/forms/parse-submission.server";
import { useValidatedForm } from "~/forms/use-validated-form";

// A fixture form with one field of each kind; no product behaviour.
const FixtureFormSchema = z.object({
  name: z.string({ error: "Enter a name." }).max(20, "Use 20 characters or fewer."),
  size: z.enum(["small", "large"], { error: "Choose a size." }),
  colour: z.enum(["red", "blue"], { error: "Choose a colour." }),
});

const SIZES = [
  { value: "small", label: "Small" },
  { value: "large", label: "Large" },
];
const COLOURS = [
  { value: "red", label: "Red" },
  { value: "blue", label: "Blue" },
];

const submitted: unknown[] = [];

async function action({ request }: ActionFunctionArgs) {
  const submission = await parseSubmission(request, FixtureFormSchema);
  if (submission.status !== "success") return { result: submission.reply() };
  submitted.push(submission.value);
  return { result: submission.reply() };
}

function FixtureForm() {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useValidatedForm({
    id: "fixture",
    schema: FixtureFormSchema,
    lastResult: actionData?.result,
  });
  const order = [fields.name, fields.size, fields.colour];
  const firstInvalid = getFirstInvalidName(order);
  return (
    <>
      <ErrorSummary fields={order} formErrors={form.errors} />
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate={form.noValidate}>
        <TextField
          meta={fields.name}
          label="Name"
          hint="As you want it shown."
          isFirstInvalid={firstInvalid === "name"}
        />
        <SelectField
          meta={fields.size}
          label="Size"
          placeholder="Choose…"
          options={SIZES}
          isFirstInvalid={firstInvalid === "size"}
        />
        <RadioGroupField
          meta={fields.colour}
          label="Colour"
          options={COLOURS}
          isFirstInvalid={firstInvalid === "colour"}
        />
        <button type="submit">Send</button>
      </Form>
    </>
  );
}

function renderForm() {
  const RemixStub = createRemixStub([{ path: "/", Component: FixtureForm, action }]);
  render(<RemixStub />);
  return userEvent.setup();
}

afterEach(() => {
  cleanup();
  submitted.length = 0;
});

describe("the form toolkit", () => {
  it("labels every field and links hints before anything is wrong", async () => {
    renderForm();
    const name = await screen.findByRole("textbox", { name: "Name" });
    expect(name).toHaveProperty("name", "name");
    expect(name.getAttribute("aria-describedby")).toBe("fixture-name-description");
    expect(document.getElementById("fixture-name-description")?.textContent).toBe("As you want it shown.");
    expect(name.hasAttribute("aria-invalid")).toBe(false);
    expect(screen.getByRole("combobox", { name: "Size" })).toBeTruthy();
    expect(within(screen.getByRole("group", { name: "Colour" })).getAllByRole("radio")).toHaveLength(2);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows each error beside its field, wires aria and focuses the first invalid field", async () => {
    const user = renderForm();
    await user.click(await screen.findByRole("button", { name: "Send" }));

    const summary = await screen.findByRole("alert");
    expect(within(summary).getByRole("heading").textContent).toBe("Check your answers");
    const links = within(summary).getAllByRole("link");
    expect(links.map((link) => [link.textContent, link.getAttribute("href")])).toEqual([
      ["Enter a name.", "#fixture-name"],
      ["Choose a size.", "#fixture-size"],
      ["Choose a colour.", "#fixture-colour"],
    ]);

    const name = screen.getByRole("textbox", { name: "Name" });
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(name.getAttribute("aria-describedby")).toBe("fixture-name-description fixture-name-error");
    expect(document.getElementById("fixture-name-error")?.textContent).toBe("Enter a name.");
    const size = screen.getByRole("combobox", { name: "Size" });
    expect(size.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(size.getAttribute("aria-describedby")!)?.textContent).toBe(
      "Choose a size.",
    );
    for (const radio of screen.getAllByRole("radio")) {
      expect(radio.getAttribute("aria-invalid")).toBe("true");
      expect(radio.getAttribute("aria-describedby")).toBe("fixture-colour-error");
    }
    expect(document.activeElement).toBe(name);
    expect(submitted).toEqual([]);
  });

  it("keeps the visitor's values beside the errors", async () => {
    const user = renderForm();
    await user.type(await screen.findByRole("textbox", { name: "Name" }), "a name that is far too long");
    await user.selectOptions(screen.getByRole("combobox", { name: "Size" }), "large");
    await user.click(screen.getByRole("radio", { name: "Blue" }));
    await user.click(screen.getByRole("button", { name: "Send" }));

    expect(await screen.findByText("Use 20 characters or fewer.", { selector: "p" })).toBeTruthy();
    expect(screen.getByRole("textbox", { name: "Name" })).toHaveProperty(
      "value",
      "a name that is far too long",
    );
    expect(screen.getByRole("combobox", { name: "Size" })).toHaveProperty("value", "large");
    expect(screen.getByRole("radio", { name: "Blue" })).toHaveProperty("checked", true);
    expect(screen.getByRole("combobox", { name: "Size" }).hasAttribute("aria-invalid")).toBe(false);
    expect(within(screen.getByRole("alert")).getAllByRole("link")).toHaveLength(1);
  });

  it("clears an error as soon as the field is corrected, with the same schema", async () => {
    const user = renderForm();
    await user.click(await screen.findByRole("button", { name: "Send" }));
    const name = await screen.findByRole("textbox", { name: "Name" });
    expect(name.getAttribute("aria-invalid")).toBe("true");
    await user.type(name, "Ada");
    expect(name.hasAttribute("aria-invalid")).toBe(false);
    expect(document.getElementById("fixture-name-error")).toBeNull();
  });

  it("sends valid values to the action, parsed by the schema", async () => {
    const user = renderForm();
    await user.type(await screen.findByRole("textbox", { name: "Name" }), "Ada");
    await user.selectOptions(screen.getByRole("combobox", { name: "Size" }), "small");
    await user.click(screen.getByRole("radio", { name: "Red" }));
    await user.click(screen.getByRole("button", { name: "Send" }));
    await screen.findByRole("button", { name: "Send" });
    await expect.poll(() => submitted).toEqual([{ name: "Ada", size: "small", colour: "red" }]);
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
