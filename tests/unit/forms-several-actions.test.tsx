// @vitest-environment jsdom
import type { ActionFunctionArgs } from "@remix-run/node";
import { Form } from "@remix-run/react";
import { createRemixStub } from "@remix-run/testing";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { UpstreamFormErrors } from "~/api/client.server";
import { ErrorSummary, SubmitButton, TextField, useValidatedForm } from "~/forms";
import { submitForm, submitIntent } from "~/forms/index.server";

// A fixture page with two actions, each its own form; no product behaviour.
const NoteFormSchema = z.object({ text: z.string({ error: "Enter a note." }) });
const RenameFormSchema = z.object({ text: z.string({ error: "Enter a name." }) });

const received: string[] = [];
let holdRename: Promise<void> | null = null;
let refuseRename: UpstreamFormErrors | null = null;

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
  const [form, fields] = useValidatedForm({ id: intent, schema, intent });
  return (
    <section aria-label={`${label} form`}>
      <ErrorSummary form={form} fields={[fields.text]} />
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate={form.noValidate}>
        <TextField meta={fields.text} label={label} />
        <SubmitButton intent={intent} pendingLabel={pendingLabel}>
          {button}
        </SubmitButton>
      </Form>
    </section>
  );
}

function renderPage() {
  const RemixStub = createRemixStub([
    {
      path: "/",
      Component: () => (
        <>
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
    expect(within(screen.getByRole("region", { name: "Name form" })).queryByRole("alert")).toBeNull();
  });

  it("shows the API's answer to one action on its form only, keeping what was typed in both", async () => {
    refuseRename = new UpstreamFormErrors(409, { formErrors: ["Renamed meanwhile."], fieldErrors: {} });
    const user = renderPage();
    await user.type(await screen.findByRole("textbox", { name: "Note" }), "Half a note");
    await user.type(screen.getByRole("textbox", { name: "Name" }), "Ada");
    await user.click(screen.getByRole("button", { name: "Rename" }));

    const rename = screen.getByRole("region", { name: "Name form" });
    expect((await within(rename).findByRole("alert")).textContent).toContain("Renamed meanwhile.");
    expect(within(screen.getByRole("region", { name: "Note form" })).queryByRole("alert")).toBeNull();
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
    expect(screen.getByRole("button", { name: "Add note" }).hasAttribute("aria-disabled")).toBe(false);
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
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate={form.noValidate}>
        <TextField meta={fields.title} label="Title" />
        <SubmitButton intent="save" pendingLabel="Saving…">
          Save
        </SubmitButton>
        <SubmitButton intent="publish" pendingLabel="Publishing…">
          Save and publish
        </SubmitButton>
      </Form>
    </>
  );
}

describe("one form with two buttons", () => {
  it("posts the intent of the button used, says pending on it only, and checks the form's fields for both", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const RemixStub = createRemixStub([
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
