// @vitest-environment jsdom
import type { ActionFunction } from "@remix-run/node";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ComponentType } from "react";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { ErrorSummary, PageMessage, useValidatedForm, ValidatedForm } from "~/forms";
import { FieldsetField, SubmitButton, TextField } from "~/forms/fields";
import { FormRefusal, submitForm, submitIntent } from "~/forms/index.server";
import { createErrorResponse } from "~/lib/errors";
import { createShellStub, getEnglishError } from "../support/shell";

// Fixture pages with several actions; no product behaviour.
const NoteFormSchema = z.object({ text: z.string({ error: "Enter a note." }) });
const RenameFormSchema = z.object({ text: z.string({ error: "Enter a name." }) });

const received: string[] = [];
let held: Promise<void> | null = null;
let refuseRename: FormRefusal | null = null;

/** Notes what an action received, then goes back to the page. */
function record(line: string) {
  received.push(line);
  return { redirectTo: "/" };
}

/** Holds the next posts in their action until the returned function is called. */
function holdPosts() {
  let release!: () => void;
  held = new Promise((resolve) => (release = resolve));
  return () => release();
}

type User = ReturnType<typeof userEvent.setup>;

function renderRoute(Component: ComponentType, action: ActionFunction) {
  const RemixStub = createShellStub([{ path: "/", Component, action }]);
  render(<RemixStub />);
  return userEvent.setup();
}

const textbox = (name: string) => screen.getByRole("textbox", { name });
const button = (name: string) => screen.getByRole("button", { name });
const region = (name: string) => screen.getByRole("region", { name });
const valueOf = (name: string) => (textbox(name) as HTMLInputElement).value;

afterEach(() => {
  cleanup();
  received.length = 0;
  held = null;
  refuseRename = null;
});

const ONE_FIELD_FORMS = {
  note: { schema: NoteFormSchema, label: "Note", button: "Add note", pending: "Adding…" },
  rename: { schema: RenameFormSchema, label: "Name", button: "Rename", pending: "Renaming…" },
};

/** A form of one text field posting `intent`, in a region named after its field. */
function OneFieldForm({ intent }: { intent: keyof typeof ONE_FIELD_FORMS }) {
  const { schema, label, button, pending } = ONE_FIELD_FORMS[intent];
  const [form, fields] = useValidatedForm({ id: intent, schema: { [intent]: schema } });
  return (
    <section aria-label={`${label} form`}>
      <ErrorSummary form={form} fields={[fields.text]} />
      <ValidatedForm form={form}>
        <TextField meta={fields.text} label={label} />
        <SubmitButton intent={intent} pendingLabel={pending}>
          {button}
        </SubmitButton>
      </ValidatedForm>
    </section>
  );
}

const renderPage = () =>
  renderRoute(
    () => (
      <>
        <PageMessage />
        <OneFieldForm intent="note" />
        <OneFieldForm intent="rename" />
      </>
    ),
    ({ request }) =>
      submitIntent(request, {
        note: {
          schema: NoteFormSchema,
          submit: async ({ text }) => record(`note: ${text}`),
        },
        rename: {
          schema: RenameFormSchema,
          async submit({ text }) {
            await held;
            if (refuseRename) throw refuseRename;
            return record(`rename: ${text}`);
          },
        },
      }),
  );

/** Types into both forms, then posts the rename. */
async function typeBothAndRename(user: User) {
  await user.type(await screen.findByRole("textbox", { name: "Note" }), "Half a note");
  await user.type(textbox("Name"), "Ada");
  await user.click(button("Rename"));
}

describe("a page with two actions", () => {
  it("shows each form's errors on that form only", async () => {
    const user = renderPage();
    await user.click(await screen.findByRole("button", { name: "Add note" }));
    expect(within(region("Note form")).getByRole("alert").textContent).toContain("Enter a note.");
    expect(within(region("Name form")).queryByRole("alert")).toBeNull();
  });

  it("shows the API's answer on its form only, keeping what was typed in both", async () => {
    refuseRename = new FormRefusal(422, { text: ["Taken meanwhile."] });
    await typeBothAndRename(renderPage());

    const rename = region("Name form");
    expect((await within(rename).findByRole("alert")).textContent).toContain("Taken meanwhile.");
    expect(within(region("Note form")).queryByRole("alert")).toBeNull();
    expect(textbox("Note")).toHaveProperty("value", "Half a note");
    expect(textbox("Name")).toHaveProperty("value", "Ada");
    expect(received).toEqual([]);
  });

  it("says pending on the button that posted only", async () => {
    const release = holdPosts();
    const user = renderPage();
    await user.type(await screen.findByRole("textbox", { name: "Name" }), "Ada");
    await user.click(button("Rename"));

    const pending = await screen.findByRole("button", { name: "Renaming…" });
    expect(pending.getAttribute("aria-disabled")).toBe("true");
    expect(button("Add note").hasAttribute("aria-disabled")).toBe(false);
    release();
    expect(await screen.findByRole("button", { name: "Rename" })).toBeTruthy();
    expect(received).toEqual(["rename: Ada"]);
  });

  it("empties the form whose post succeeded, and only that one", async () => {
    const user = renderPage();
    await user.type(await screen.findByRole("textbox", { name: "Name" }), "Not sent");
    await user.type(textbox("Note"), "  Sent  ");
    await user.click(button("Add note"));

    await expect.poll(() => received).toEqual(["note: Sent"]);
    await expect.poll(() => valueOf("Note")).toBe("");
    expect(textbox("Name")).toHaveProperty("value", "Not sent");
  });
});

// One form with two buttons: both act on the same fields, so one schema names the intent.
const ArticleFormSchema = z.object({
  title: z.string({ error: "Enter a title." }),
  intent: z.enum(["save", "publish"]),
});

function ArticleForm() {
  const [form, fields] = useValidatedForm({ id: "article", schema: ArticleFormSchema });
  return (
    <>
      <ErrorSummary form={form} fields={[fields.title]} />
      <ValidatedForm form={form}>
        <TextField meta={fields.title} label="Title" />
        <SubmitButton intent="save" pendingLabel="Saving…">
          Save
        </SubmitButton>
        <SubmitButton intent="publish" pendingLabel="Publishing…">
          Save and publish
        </SubmitButton>
      </ValidatedForm>
    </>
  );
}

describe("one form with two buttons", () => {
  it("posts the intent of the button used, pending on it alone, checking the fields", async () => {
    const release = holdPosts();
    const user = renderRoute(ArticleForm, ({ request }) =>
      submitForm(request, ArticleFormSchema, async ({ title, intent }) => {
        await held;
        return record(`${intent}: ${title}`);
      }),
    );
    await user.click(await screen.findByRole("button", { name: "Save and publish" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Enter a title.");

    await user.type(textbox("Title"), "Pines");
    await user.click(button("Save and publish"));
    expect(await screen.findByRole("button", { name: "Publishing…" })).toBeTruthy();
    expect(button("Save").hasAttribute("aria-disabled")).toBe(false);
    release();
    await expect.poll(() => received).toEqual(["publish: Pines"]);
    await expect.poll(() => valueOf("Title")).toBe("");
  });
});

describe("a refusal that names no field", () => {
  it.each([
    [409, getEnglishError("NOT_CHANGED").title, ""],
    [403, getEnglishError("FORBIDDEN").title, "Ada"],
  ])(
    "%i shows on the form that posted; after a conflict the form shows the page's data",
    async (status, title, nameAfter) => {
      refuseRename = new FormRefusal(status, { "": ["Not now."] });
      await typeBothAndRename(renderPage());

      const message = await within(region("Name form")).findByRole("alert");
      expect(within(message).getByRole("heading").textContent).toBe(title);
      expect(message.textContent).toContain("Not now.");
      expect(document.activeElement).toBe(message);
      expect(within(region("Note form")).queryByRole("alert")).toBeNull();
      expect(textbox("Note")).toHaveProperty("value", "Half a note");
      await expect.poll(() => valueOf("Name")).toBe(nameAfter);
    },
  );
});

// A form on every row: the rows share their intents, and each posts its own id.
const RowFormSchema = z.object({
  id: z.string(),
  quantity: z.int({ error: "Enter a whole number." }),
});
const RemoveFormSchema = z.object({ id: z.string() });

function Row({ id }: { id: string }) {
  const [form, fields] = useValidatedForm({
    id: `row-${id}`,
    schema: { update: RowFormSchema, remove: RemoveFormSchema },
    defaultValue: { quantity: Number(id) * 10 },
  });
  return (
    <li aria-label={`Row ${id}`}>
      <ErrorSummary form={form} fields={[fields.quantity]} />
      <ValidatedForm form={form}>
        <input type="hidden" name="id" value={id} />
        <TextField meta={fields.quantity} label={`Quantity ${id}`} />
        <SubmitButton intent="update" pendingLabel="Updating…">
          Update {id}
        </SubmitButton>
        <SubmitButton intent="remove" pendingLabel="Removing…">
          Remove {id}
        </SubmitButton>
      </ValidatedForm>
    </li>
  );
}

const renderRows = () =>
  renderRoute(
    () => (
      <ul>
        {["1", "2", "3"].map((id) => (
          <Row key={id} id={id} />
        ))}
      </ul>
    ),
    ({ request }) =>
      submitIntent(request, {
        update: {
          schema: RowFormSchema,
          async submit({ id, quantity }) {
            await held;
            if (quantity > 100) throw new FormRefusal(422, { quantity: ["Too many."] });
            return record(`update ${id}: ${quantity}`);
          },
        },
        remove: {
          schema: RemoveFormSchema,
          submit: async ({ id }) => record(`remove ${id}`),
        },
      }),
  );

const row = (id: string) => screen.getByRole("listitem", { name: `Row ${id}` });

/** Replaces the quantity of `line` with `text`, then clicks `buttonName`. */
async function retype(user: User, line: string, text: string, buttonName: string) {
  await user.clear(await screen.findByRole("textbox", { name: `Quantity ${line}` }));
  await user.type(textbox(`Quantity ${line}`), text);
  await user.click(button(buttonName));
}

describe("a form on every row", () => {
  it("shows the browser's and the action's errors on the row that posted, only there", async () => {
    const user = renderRows();
    await retype(user, "2", "lots", "Update 2");
    expect((await within(row("2")).findByRole("alert")).textContent).toContain(
      "Enter a whole number.",
    );
    expect(screen.getAllByRole("alert")).toHaveLength(1);

    await retype(user, "3", "500", "Update 3");
    expect((await within(row("3")).findByRole("alert")).textContent).toContain("Too many.");
    expect(within(row("1")).queryByRole("alert")).toBeNull();
    expect(textbox("Quantity 3")).toHaveProperty("value", "500");
    expect(received).toEqual([]);
  });

  it("checks only the fields of the button's intent: a row goes, any quantity typed", async () => {
    await retype(renderRows(), "1", "lots", "Remove 1");
    await expect.poll(() => received).toEqual(["remove 1"]);
    expect(screen.queryAllByRole("alert")).toEqual([]);
  });

  it("says pending on the button that posted only, not on other rows' same buttons", async () => {
    const release = holdPosts();
    const user = renderRows();
    await user.click(await screen.findByRole("button", { name: "Update 2" }));
    expect(await within(row("2")).findByRole("button", { name: "Updating…" })).toBeTruthy();
    for (const other of ["Update 1", "Update 3", "Remove 2"]) {
      expect(button(other).hasAttribute("aria-disabled")).toBe(false);
    }
    release();
    await expect.poll(() => received).toEqual(["update 2: 20"]);
  });
});

// One form for every row and a note: each button names its intent and the row it acts on, so a
// post checks only that row and gives back everything else typed on the page.
const LineSchema = z.object({ quantity: z.int({ error: "Enter a whole number." }) });
const NoteSchema = z.object({ note: z.string({ error: "Write a note." }) });

function OrderPage() {
  const [form, fields] = useValidatedForm({
    id: "order",
    schema: { update: LineSchema, place: NoteSchema },
    defaultValue: { 1: { quantity: 10 }, 2: { quantity: 20 } },
  });
  return (
    <>
      <PageMessage />
      <ErrorSummary
        form={form}
        fields={[form.field("1.quantity"), form.field("2"), form.field("2.quantity"), fields.note]}
      />
      <ValidatedForm form={form}>
        {["1", "2"].map((line) => (
          <FieldsetField key={line} meta={form.field(line)} label={`Line ${line}`}>
            <TextField meta={form.field(`${line}.quantity`)} label={`Quantity ${line}`} />
            <SubmitButton intent={`update:${line}`} pendingLabel="Updating…">
              Update {line}
            </SubmitButton>
          </FieldsetField>
        ))}
        <TextField meta={fields.note} label="Note" />
        <SubmitButton intent="place" pendingLabel="Placing…">
          Place order
        </SubmitButton>
      </ValidatedForm>
    </>
  );
}

describe("one form whose buttons name a row", () => {
  it("checks the row of the button used, and keeps what was typed elsewhere", async () => {
    const user = renderRoute(OrderPage, ({ request }) =>
      submitIntent(request, {
        update: {
          schema: LineSchema,
          async submit({ quantity }, line) {
            received.push(`line ${line}: ${quantity}`);
            return { message: `Line ${line} updated.` };
          },
        },
        place: {
          schema: NoteSchema,
          submit: async ({ note }) => record(`placed: ${note}`),
        },
      }),
    );
    const first = await screen.findByRole("textbox", { name: "Quantity 1" });
    await user.clear(first);
    await user.type(first, "half typed");
    await user.type(textbox("Note"), "Leave at the door");
    await retype(user, "2", "x", "Update 2");

    const summary = await screen.findByRole("alert");
    const hrefs = within(summary)
      .getAllByRole("link")
      .map((link) => link.getAttribute("href"));
    expect(hrefs).toEqual(["#order-2.quantity"]);
    await retype(user, "2", "25", "Update 2");

    expect((await screen.findByRole("status")).textContent).toBe("Line 2 updated.");
    expect(received).toEqual(["line 2: 25"]);
    expect(first).toHaveProperty("value", "half typed");
    expect(textbox("Note")).toHaveProperty("value", "Leave at the door");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows a row's refusal, and the API failing, on that row, keeping what was typed", async () => {
    const user = renderRoute(OrderPage, ({ request }) =>
      submitIntent(request, {
        update: {
          schema: LineSchema,
          async submit({ quantity }) {
            if (quantity) throw createErrorResponse("UPSTREAM_UNAVAILABLE");
            throw new FormRefusal(409, { "": ["The line changed meanwhile."] });
          },
        },
        place: { schema: NoteSchema, submit: async ({ note }) => record(note) },
      }),
    );
    await user.type(await screen.findByRole("textbox", { name: "Note" }), "Leave at the door");
    await retype(user, "2", "0", "Update 2");
    const line = screen.getByRole("group", { name: "Line 2" });
    expect(await within(line).findByText("The line changed meanwhile.")).toBeTruthy();
    const summary = screen.getByRole("alert");
    expect(within(summary).getByRole("link").getAttribute("href")).toBe("#order-2");
    expect(valueOf("Quantity 2")).toBe("20");

    await retype(user, "1", "5", "Update 1");
    const failed = getEnglishError("UPSTREAM_UNAVAILABLE");
    const first = screen.getByRole("group", { name: "Line 1" });
    expect(await within(first).findByText(failed.message)).toBeTruthy();
    expect(within(screen.getByRole("alert")).getByRole("heading").textContent).toBe(failed.title);
    expect([valueOf("Quantity 1"), valueOf("Note")]).toEqual(["5", "Leave at the door"]);
  });
});
