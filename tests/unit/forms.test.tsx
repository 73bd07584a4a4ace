// @vitest-environment jsdom
import type { ActionFunctionArgs } from "@remix-run/node";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { ErrorSummary, useValidatedForm, ValidatedForm } from "~/forms";
import { CheckboxField, RadioGroupField, SelectField } from "~/forms/fields";
import { TextareaField, TextField } from "~/forms/fields";
import { FormRefusal, submitForm } from "~/forms/index.server";
import { createShellStub } from "../support/shell";

// A fixture form with one field of each kind; no product behaviour.
const FixtureFormSchema = z.object({
  name: z.string({ error: "Enter a name." }).check(z.maxLength(20, "Use 20 characters or fewer.")),
  size: z.enum(["small", "large"], { error: "Choose a size." }),
  colour: z.enum(["red", "blue"], { error: "Choose a colour." }),
  count: z.optional(z.int({ error: "Enter a whole number." })),
  urgent: z._default(z.boolean(), false),
  notes: z._default(z.string(), ""),
});

type FixtureValues = z.output<typeof FixtureFormSchema>;
const TOO_LONG = "a name that is far too long";

const options = (...labels: string[]) =>
  labels.map((label) => ({ value: label.toLowerCase(), label }));
const [SIZES, COLOURS] = [options("Small", "Large"), options("Red", "Blue")];

const submitted: FixtureValues[] = [];
/** What the fixture's "API" answers to the next valid submission, if anything. */
let apiAnswer: FormRefusal | null = null;

async function action({ request }: ActionFunctionArgs) {
  return submitForm(request, FixtureFormSchema, async (value) => {
    if (apiAnswer) throw apiAnswer;
    submitted.push(value);
    return { redirectTo: "/" };
  });
}

function FixtureForm({ defaultValue }: { defaultValue?: Partial<FixtureValues> }) {
  const [form, fields] = useValidatedForm({
    id: "fixture",
    schema: FixtureFormSchema,
    defaultValue,
  });
  return (
    <>
      <ErrorSummary form={form} fields={[fields.name, fields.size, fields.colour, fields.count]} />
      <ValidatedForm form={form}>
        <TextField meta={fields.name} label="Name" hint="As you want it shown." />
        <SelectField meta={fields.size} label="Size" placeholder="Choose…" options={SIZES} />
        <RadioGroupField meta={fields.colour} label="Colour" options={COLOURS} />
        <TextField meta={fields.count} label="Count" inputMode="numeric" />
        <CheckboxField meta={fields.urgent} label="Urgent" />
        <TextareaField meta={fields.notes} label="Notes" />
        <button type="submit">Send</button>
      </ValidatedForm>
    </>
  );
}

function renderForm(defaultValue?: Partial<FixtureValues>) {
  const RemixStub = createShellStub([
    { path: "/", Component: () => <FixtureForm defaultValue={defaultValue} />, action },
  ]);
  render(<RemixStub />);
  return userEvent.setup();
}

const textbox = (name: string) => screen.getByRole("textbox", { name });
const findTextbox = (name: string) => screen.findByRole("textbox", { name });
const size = () => screen.getByRole("combobox", { name: "Size" });
const radio = (name: string) => screen.getByRole("radio", { name });
const textOf = (id: string) => document.getElementById(id)?.textContent;
type User = ReturnType<typeof userEvent.setup>;
const send = (user: User) => user.click(screen.getByRole("button", { name: "Send" }));

async function fillValidForm(user: User, name = "Ada") {
  await user.type(await findTextbox("Name"), name);
  await user.selectOptions(size(), "small");
  await user.click(radio("Red"));
}

afterEach(() => {
  cleanup();
  submitted.length = 0;
  apiAnswer = null;
});

describe("the form toolkit", () => {
  it("labels every field and links hints before anything is wrong", async () => {
    renderForm();
    const name = await findTextbox("Name");
    expect(name).toHaveProperty("name", "name");
    expect(name.getAttribute("aria-describedby")).toBe("fixture-name-description");
    expect(textOf("fixture-name-description")).toBe("As you want it shown.");
    expect(name.hasAttribute("aria-invalid")).toBe(false);
    expect(size()).toBeTruthy();
    expect(
      within(screen.getByRole("group", { name: "Colour" })).getAllByRole("radio"),
    ).toHaveLength(2);
    expect(screen.getByRole("checkbox", { name: "Urgent" })).toBeTruthy();
    expect(textbox("Notes").tagName).toBe("TEXTAREA");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("checks nothing while the visitor fills the form in, so nothing moves before the click", async () => {
    const user = renderForm();
    await user.type(await findTextbox("Name"), TOO_LONG);
    await user.tab();
    await user.type(textbox("Count"), "many");
    await user.tab();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(document.querySelectorAll("[aria-invalid]")).toHaveLength(0);
  });

  it("after a submit attempt, shows each error beside its field and moves focus to the summary", async () => {
    const user = renderForm();
    await user.type(await findTextbox("Count"), "1.5");
    await send(user);

    const summary = await screen.findByRole("alert");
    expect(document.activeElement).toBe(summary);
    expect(within(summary).getByRole("heading").textContent).toBe("Check your answers");
    const links = within(summary).getAllByRole("link");
    expect(links.map((link) => [link.textContent, link.getAttribute("href")])).toEqual([
      ["Enter a name.", "#fixture-name"],
      ["Choose a size.", "#fixture-size"],
      ["Choose a colour.", "#fixture-colour"],
      ["Enter a whole number.", "#fixture-count"],
    ]);

    const name = textbox("Name");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(name.getAttribute("aria-describedby")).toBe(
      "fixture-name-description fixture-name-error",
    );
    expect(textOf("fixture-name-error")).toBe("Enter a name.");
    expect(textOf(size().getAttribute("aria-describedby")!)).toBe("Choose a size.");
    for (const radio of screen.getAllByRole("radio")) {
      expect(radio.getAttribute("aria-invalid")).toBe("true");
      expect(radio.getAttribute("aria-describedby")).toBe("fixture-colour-error");
    }
    // The summary's link to the radio group leads to its first radio button.
    await user.click(links[2]!);
    expect(document.activeElement).toBe(radio("Red"));
    expect(submitted).toEqual([]);
  });

  it("treats a name of only spaces as no name, and trims what it sends", async () => {
    const user = renderForm();
    await user.type(await findTextbox("Name"), "   ");
    await send(user);
    expect(await screen.findByText("Enter a name.", { selector: "p" })).toBeTruthy();

    await user.clear(textbox("Name"));
    await fillValidForm(user, "  Ada  ");
    await send(user);
    await expect
      .poll(() => submitted)
      .toEqual([{ name: "Ada", size: "small", colour: "red", urgent: false, notes: "" }]);
  });

  it("keeps the visitor's values beside the errors", async () => {
    const user = renderForm();
    await user.type(await findTextbox("Name"), TOO_LONG);
    await user.selectOptions(size(), "large");
    await user.click(radio("Blue"));
    await send(user);

    expect(await screen.findByText("Use 20 characters or fewer.", { selector: "p" })).toBeTruthy();
    expect(textbox("Name")).toHaveProperty("value", TOO_LONG);
    expect(size()).toHaveProperty("value", "large");
    expect(radio("Blue")).toHaveProperty("checked", true);
    expect(size().hasAttribute("aria-invalid")).toBe(false);
    expect(within(screen.getByRole("alert")).getAllByRole("link")).toHaveLength(1);
  });

  it("once submitted, checks a field again as the visitor types", async () => {
    const user = renderForm();
    await user.click(await screen.findByRole("button", { name: "Send" }));
    const name = await findTextbox("Name");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    await user.type(name, "Ada");
    expect(name).toHaveProperty("value", "Ada");
    expect(document.activeElement).toBe(name);
    expect(name.hasAttribute("aria-invalid")).toBe(false);
    expect(document.getElementById("fixture-name-error")).toBeNull();
  });

  it("opens filled in with its default values, and sends them parsed by the schema", async () => {
    const values: FixtureValues = {
      name: "Ada",
      size: "large",
      colour: "blue",
      count: 3,
      urgent: true,
      notes: "Hi",
    };
    const user = renderForm(values);
    expect(await findTextbox("Name")).toHaveProperty("value", "Ada");
    expect(size()).toHaveProperty("value", "large");
    expect(radio("Blue")).toHaveProperty("checked", true);
    expect(textbox("Count")).toHaveProperty("value", "3");
    expect(screen.getByRole("checkbox", { name: "Urgent" })).toHaveProperty("checked", true);
    expect(textbox("Notes")).toHaveProperty("value", "Hi");
    await send(user);
    await expect.poll(() => submitted).toEqual([values]);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows the API's answer beside the fields and above the form, keeping what was sent", async () => {
    const refusal = {
      "": ["The service refused this."],
      name: ["That name is taken."],
      reference: ["forms.invalid"],
    };
    apiAnswer = new FormRefusal(422, refusal, "en-GB");
    const user = renderForm();
    await fillValidForm(user, "Taken");
    await send(user);

    const summary = await screen.findByRole("alert");
    expect(document.activeElement).toBe(summary);
    const texts = (role: string) =>
      within(summary)
        .getAllByRole(role)
        .map((e) => e.textContent);
    expect(texts("listitem")).toEqual([
      "The service refused this.",
      "That name is taken.",
      "This value is not valid.",
    ]);
    expect(texts("link")).toEqual(["That name is taken."]);
    // The API's own words are marked with their language; a message key is in the page's.
    const marked = [...document.querySelectorAll("[lang]")].map((e) => [
      e.textContent,
      e.getAttribute("lang"),
    ]);
    expect(marked).toEqual([
      ["The service refused this.", "en-GB"],
      ["That name is taken.", "en-GB"],
      ["That name is taken.", "en-GB"],
    ]);
    expect(textOf("fixture-name-error")).toBe("That name is taken.");
    expect(textbox("Name")).toHaveProperty("value", "Taken");
    expect(size()).toHaveProperty("value", "small");
  });
});
