// @vitest-environment jsdom
import type { ActionFunctionArgs } from "@remix-run/node";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { ErrorSummary, PageMessage, useValidatedForm, ValidatedForm } from "~/forms";
import { SubmitButton, TextField } from "~/forms/fields";
import { FormRefusal, submitForm, submitIntent } from "~/forms/index.server";
import { createShellStub, getEnglishError } from "../support/shell";

// A fixture page with two actions, each its own form; no product behaviour.
const NoteFormSchema = z.object({ text: z.string({ error: "Enter a note." }) });
const RenameFormSchema = z.object({ text: z.string({ error: "Enter a name." }) });

const received: string[] = [];
let holdRename: Promise<void> | null = null;
let refuseRename: FormRefusal | null = null;

async function action({ request }: ActionFunctionArgs) {
  return submitIntent(request, {
    note: {
      schema: NoteFormSchema,
      async submit({ text }) {
        received.push(`note: ${text}`);
        return { redirectTo: "/" };
      },
    },
    rename: {
      schema: RenameFormSchema,
      async submit({ text }) {
        await holdRename;
        if (refuseRename) throw refuseRename;
        received.push(`rename: ${text}`);
        return { redirectTo: "/" };
      },
    },
  });
}

/** A form of one text field posting `intent`, in a region named after its field. */
function OneFieldForm({
  intent,
  schema,
  label,
  button,
  pendingLabel,
}: {
  intent: string;
  schema: typeof NoteFormSchema;
  label: string;
  button: string;
  pendingLabel: string;
}) {
  const [form, fields] = useValidatedForm({ id: intent, schema: { [intent]: schema } });
  return (
    <section aria-label={`${label} form`}>
      <ErrorSummary form={form} fields={[fields.text]} />
      <ValidatedForm form={form}>
        <TextField meta={fields.text} label={label} />
        <SubmitButton intent={intent} pendingLabel={pendingLabel}>
          {button}
        </SubmitButton>
      </ValidatedForm>
    </section>
  );
}

function renderPage() {
  const RemixStub = createShellStub([
    {
      path: "/",
      Component: () => (
        <>
          <PageMessage />
          <OneFieldForm
            intent="note"
            schema={NoteFormSchema}
            label="Note"
            button="Add note"
            pendingLabel="Adding…"
          />
          <OneFieldForm
            intent="rename"
            schema={RenameFormSchema}
            label="Name"
            button="Rename"
            pendingLabel="Renaming…"
          />
        </>
      ),
      action,
    },
  ]);
  render(<RemixStub />);
  return userEvent.setup();
}

afterEach(() => {
  cleanup();
  received.length = 0;
  holdRename = null;
  refuseRename = null;
});

describe("a page with two actions", () => {
  it("shows each form's errors on that form only", async () => {
    const user = renderPage();
    await user.click(await screen.findByRole("button", { name: "Add note" }));
    const notes = screen.getByRole("region", { name: "Note form" });
    expect(within(notes).getByRole("alert").textContent).toContain("Enter a note.");
    expect(
      within(screen.getByRole("region", { name: "Name form" })).queryByRole("alert"),
    ).toBeNull();
  });

  it("shows the API's answer on its form only, keeping what was typed in both", async () => {
    refuseRename = new FormRefusal(422, { text: ["Taken meanwhile."] });
    const user = renderPage();
    await user.type(await screen.findByRole("textbox", { name: "Note" }), "Half a note");
    await user.type(screen.getByRole("textbox", { name: "Name" }), "Ada");
    await user.click(screen.getByRole("button", { name: "Rename" }));

    const rename = screen.getByRole("region", { name: "Name form" });
    expect((await within(rename).findByRole("alert")).textContent).toContain("Taken meanwhile.");
    expect(
      within(screen.getByRole("region", { name: "Note form" })).queryByRole("alert"),
    ).toBeNull();
    expect(screen.getByRole("textbox", { name: "Note" })).toHaveProperty("value", "Half a note");
    expect(screen.getByRole("textbox", { name: "Name" })).toHaveProperty("value", "Ada");
    expect(received).toEqual([]);
  });

  it("says pending on the button that posted only", async () => {
    let release!: () => void;
    holdRename = new Promise((resolve) => (release = resolve));
    const user = renderPage();
    await user.type(await screen.findByRole("textbox", { name: "Name" }), "Ada");
    await user.click(screen.getByRole("button", { name: "Rename" }));

    const pending = await screen.findByRole("button", { name: "Renaming…" });
    expect(pending.getAttribute("aria-disabled")).toBe("true");
    expect(screen.getByRole("button", { name: "Add note" }).hasAttribute("aria-disabled")).toBe(
      false,
    );
    release();
    expect(await screen.findByRole("button", { name: "Rename" })).toBeTruthy();
    expect(received).toEqual(["rename: Ada"]);
  });

  it("empties the form whose post succeeded, and only that one", async () => {
    const user = renderPage();
    await user.type(await screen.findByRole("textbox", { name: "Name" }), "Not sent");
    await user.type(screen.getByRole("textbox", { name: "Note" }), "  Sent  ");
    await user.click(screen.getByRole("button", { name: "Add note" }));

    await expect.poll(() => received).toEqual(["note: Sent"]);
    await expect
      .poll(() => (screen.getByRole("textbox", { name: "Note" }) as HTMLInputElement).value)
      .toBe("");
    expect(screen.getByRole("textbox", { name: "Name" })).toHaveProperty("value", "Not sent");
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
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const RemixStub = createShellStub([
      {
        path: "/",
        Component: ArticleForm,
        action: ({ request }: ActionFunctionArgs) =>
          submitForm(request, ArticleFormSchema, async ({ title, intent }) => {
            await held;
            received.push(`${intent}: ${title}`);
            return { redirectTo: "/" };
          }),
      },
    ]);
    render(<RemixStub />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Save and publish" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Enter a title.");

    await user.type(screen.getByRole("textbox", { name: "Title" }), "Pines");
    await user.click(screen.getByRole("button", { name: "Save and publish" }));
    expect(await screen.findByRole("button", { name: "Publishing…" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Save" }).hasAttribute("aria-disabled")).toBe(false);
    release();
    await expect.poll(() => received).toEqual(["publish: Pines"]);
    await expect
      .poll(() => (screen.getByRole("textbox", { name: "Title" }) as HTMLInputElement).value)
      .toBe("");
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
      const user = renderPage();
      await user.type(await screen.findByRole("textbox", { name: "Note" }), "Half a note");
      await user.type(screen.getByRole("textbox", { name: "Name" }), "Ada");
      await user.click(screen.getByRole("button", { name: "Rename" }));

      const rename = screen.getByRole("region", { name: "Name form" });
      const message = await within(rename).findByRole("alert");
      expect(within(message).getByRole("heading").textContent).toBe(title);
      expect(message.textContent).toContain("Not now.");
      expect(document.activeElement).toBe(message);
      expect(
        within(screen.getByRole("region", { name: "Note form" })).queryByRole("alert"),
      ).toBeNull();
      expect(screen.getByRole("textbox", { name: "Note" })).toHaveProperty("value", "Half a note");
      await expect
        .poll(() => (screen.getByRole("textbox", { name: "Name" }) as HTMLInputElement).value)
        .toBe(nameAfter);
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

function renderRows() {
  const RemixStub = createShellStub([
    {
      path: "/",
      Component: () => (
        <ul>
          {["1", "2", "3"].map((id) => (
            <Row key={id} id={id} />
          ))}
        </ul>
      ),
      action: ({ request }: ActionFunctionArgs) =>
        submitIntent(request, {
          update: {
            schema: RowFormSchema,
            async submit({ id, quantity }) {
              await holdRename;
              if (quantity > 100) throw new FormRefusal(422, { quantity: ["Too many."] });
              received.push(`update ${id}: ${quantity}`);
              return { redirectTo: "/" };
            },
          },
          remove: {
            schema: RemoveFormSchema,
            async submit({ id }) {
              received.push(`remove ${id}`);
              return { redirectTo: "/" };
            },
          },
        }),
    },
  ]);
  render(<RemixStub />);
  return userEvent.setup();
}

const row = (id: string) => screen.getByRole("listitem", { name: `Row ${id}` });

describe("a form on every row", () => {
  it("shows the browser's and the action's errors on the row that posted, only there", async () => {
    const user = renderRows();
    await user.clear(await screen.findByRole("textbox", { name: "Quantity 2" }));
    await user.type(screen.getByRole("textbox", { name: "Quantity 2" }), "lots");
    await user.click(screen.getByRole("button", { name: "Update 2" }));
    expect((await within(row("2")).findByRole("alert")).textContent).toContain(
      "Enter a whole number.",
    );
    expect(screen.getAllByRole("alert")).toHaveLength(1);

    await user.clear(screen.getByRole("textbox", { name: "Quantity 3" }));
    await user.type(screen.getByRole("textbox", { name: "Quantity 3" }), "500");
    await user.click(screen.getByRole("button", { name: "Update 3" }));
    expect((await within(row("3")).findByRole("alert")).textContent).toContain("Too many.");
    expect(within(row("1")).queryByRole("alert")).toBeNull();
    expect(screen.getByRole("textbox", { name: "Quantity 3" })).toHaveProperty("value", "500");
    expect(received).toEqual([]);
  });

  it("checks only the fields of the button's intent: a row goes, any quantity typed", async () => {
    const user = renderRows();
    await user.clear(await screen.findByRole("textbox", { name: "Quantity 1" }));
    await user.type(screen.getByRole("textbox", { name: "Quantity 1" }), "lots");
    await user.click(screen.getByRole("button", { name: "Remove 1" }));
    await expect.poll(() => received).toEqual(["remove 1"]);
    expect(screen.queryAllByRole("alert")).toEqual([]);
  });

  it("says pending on the button that posted only, not on other rows' same buttons", async () => {
    let release!: () => void;
    holdRename = new Promise((resolve) => (release = resolve));
    const user = renderRows();
    await user.click(await screen.findByRole("button", { name: "Update 2" }));
    expect(await within(row("2")).findByRole("button", { name: "Updating…" })).toBeTruthy();
    for (const other of ["Update 1", "Update 3", "Remove 2"]) {
      expect(screen.getByRole("button", { name: other }).hasAttribute("aria-disabled")).toBe(false);
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
        fields={[form.field("1.quantity"), form.field("2.quantity"), fields.note]}
      />
      <ValidatedForm form={form}>
        {["1", "2"].map((line) => (
          <div key={line}>
            <TextField meta={form.field(`${line}.quantity`)} label={`Quantity ${line}`} />
            <SubmitButton intent={`update:${line}`} pendingLabel="Updating…">
              Update {line}
            </SubmitButton>
          </div>
        ))}
        <TextField meta={fields.note} label="Note" />
        <SubmitButton intent="place" pendingLabel="Placing…">
          Place order
        </SubmitButton>
      </ValidatedForm>
    </>
  );
}

function renderOrder() {
  const RemixStub = createShellStub([
    {
      path: "/",
      Component: OrderPage,
      action: ({ request }: ActionFunctionArgs) =>
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
            async submit({ note }) {
              received.push(`placed: ${note}`);
              return { redirectTo: "/" };
            },
          },
        }),
    },
  ]);
  render(<RemixStub />);
  return userEvent.setup();
}

describe("one form whose buttons name a row", () => {
  it("checks the row of the button used, and keeps what was typed elsewhere", async () => {
    const user = renderOrder();
    const [first, second] = await Promise.all(
      [1, 2].map((line) => screen.findByRole("textbox", { name: `Quantity ${line}` })),
    );
    await user.clear(first!);
    await user.type(first!, "half typed");
    await user.type(screen.getByRole("textbox", { name: "Note" }), "Leave at the door");
    await user.clear(second!);
    await user.type(second!, "x");
    await user.click(screen.getByRole("button", { name: "Update 2" }));

    const summary = await screen.findByRole("alert");
    expect(
      within(summary)
        .getAllByRole("link")
        .map((link) => link.getAttribute("href")),
    ).toEqual(["#order-2.quantity"]);
    await user.clear(second!);
    await user.type(second!, "25");
    await user.click(screen.getByRole("button", { name: "Update 2" }));

    expect((await screen.findByRole("status")).textContent).toBe("Line 2 updated.");
    expect(received).toEqual(["line 2: 25"]);
    expect(first).toHaveProperty("value", "half typed");
    expect(screen.getByRole("textbox", { name: "Note" })).toHaveProperty(
      "value",
      "Leave at the door",
    );
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
