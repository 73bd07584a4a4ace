import type { Page } from "@playwright/test";
import { sendJson } from "../support/upstream";
import { expect, getAlerts, holdAnswer, isSameWindow, markWindow, test } from "./things-fixture";

const field = (page: Page, label: string) =>
  page.getByRole("main").getByLabel(label, { exact: true });

test("adding a thing: an invalid value and a click show the errors, valid values save it", async ({
  page,
  things,
  upstream,
  javaScriptEnabled,
  consoleErrors,
}) => {
  await page.goto("/things/new");
  if (javaScriptEnabled) await markWindow(page);
  await field(page, "Quantity").fill("a dozen");
  await field(page, "Name").fill("   ");
  // A real mouse click, with the cursor still in the field: leaving it must not move the button.
  await page.click("button:text('Add thing')");

  await expect(getAlerts(page)).toBeFocused();
  await expect(getAlerts(page).getByRole("link")).toHaveText([
    "Enter a name.",
    "Enter the quantity as a whole number, like 12.",
    "Choose a colour.",
  ]);
  const name = field(page, "Name");
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(name).toHaveAccessibleDescription("Up to 60 characters. Enter a name.");
  await expect(field(page, "Quantity")).toHaveValue("a dozen");
  expect(upstream.received.filter((request) => request.method === "POST")).toEqual([]);

  if (javaScriptEnabled) {
    // Once submitted, a field is checked again as the visitor types.
    await field(page, "Quantity").fill("12");
    await expect(field(page, "Quantity")).not.toHaveAttribute("aria-invalid");
    await expect(getAlerts(page).getByRole("link")).toHaveText([
      "Enter a name.",
      "Choose a colour.",
    ]);
  }

  await field(page, "Name").fill("  Zinc  ");
  await field(page, "Quantity").fill("12");
  await field(page, "Colour").selectOption("Green");
  await field(page, "Featured").check();
  await field(page, "Notes").fill("Made up for a test.");
  await page.click("button:text('Add thing')");

  await expect(page).toHaveURL(/\/things\/13$/);
  await expect(page.getByRole("status")).toHaveText("Zinc was added.");
  await expect(page.getByRole("region", { name: "Zinc" })).toContainText("Quantity12");
  expect(things.things.get("13")).toMatchObject({
    name: "Zinc",
    quantity: 12,
    colour: "green",
    featured: true,
    notes: "Made up for a test.",
  });
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
  // Chromium reports a page answered with 400 as a console error; nothing else may appear.
  expect(consoleErrors.filter((error) => !/status of 400/.test(error))).toEqual([]);
});

test("editing a thing: the form opens filled in, and saving shows the flash", async ({
  page,
  things,
  consoleErrors,
}) => {
  await page.goto("/things/3");
  await page.getByRole("link", { name: "Edit Cedar" }).click();

  await expect(page.getByRole("heading", { level: 1, name: "Edit Cedar" })).toBeVisible();
  await expect(field(page, "Name")).toHaveValue("Cedar");
  await expect(field(page, "Quantity")).toHaveValue("20");
  await expect(field(page, "Colour")).toHaveValue("blue");
  await expect(field(page, "Featured")).toBeChecked();
  await expect(field(page, "Notes")).toHaveValue("");

  await field(page, "Quantity").fill("25");
  await field(page, "Featured").uncheck();
  await page.getByRole("button", { name: "Save changes" }).click();

  await expect(page).toHaveURL(/\/things\/3$/);
  await expect(page.getByRole("status")).toHaveText("Your changes to Cedar were saved.");
  await expect(page.getByRole("region", { name: "Cedar" })).toContainText("Quantity25");
  expect(things.things.get("3")).toMatchObject({ quantity: 25, featured: false, version: 2 });
  expect(consoleErrors).toEqual([]);
});

test("the API's 422 shows beside its field; after its 409 the form holds the latest data", async ({
  page,
  things,
}) => {
  await page.goto("/things/3/edit");
  await field(page, "Name").fill("Birch");
  await page.getByRole("button", { name: "Save changes" }).click();

  const taken = "Another thing already has this name. Choose a different name.";
  await expect(getAlerts(page)).toBeFocused();
  await expect(getAlerts(page).getByRole("link")).toHaveText([taken]);
  await expect(field(page, "Name")).toHaveAccessibleDescription(`Up to 60 characters. ${taken}`);
  await expect(field(page, "Name")).toHaveValue("Birch");
  await expect(page).toHaveURL(/\/things\/3\/edit$/);

  // Someone else saves the thing meanwhile: what was typed must not go out again over it.
  const theirs = {
    ...things.things.get("3")!,
    colour: "red" as const,
    featured: false,
    version: 2,
  };
  things.things.set("3", theirs);
  await field(page, "Name").fill("Cedar the second");
  await field(page, "Colour").selectOption("Green");
  await page.getByRole("button", { name: "Save changes" }).click();

  await expect(getAlerts(page)).toContainText("The form now shows the latest version.");
  await expect(getAlerts(page)).toBeFocused();
  await expect(field(page, "Name")).toHaveValue("Cedar");
  await expect(field(page, "Colour")).toHaveValue("red");
  await expect(field(page, "Featured")).not.toBeChecked();
  await expect(field(page, "Name")).not.toHaveAttribute("aria-invalid");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status")).toHaveText("Your changes to Cedar were saved.");
  expect(things.things.get("3")).toMatchObject({ name: "Cedar", colour: "red", version: 3 });
});

// The toolkit's controls, one of each kind (tests/support/fault-routes/controls.tsx): after a post
// that comes back to the page, by a redirect or a message, each shows what was saved. The date and
// time is read on the clocks of TIME_ZONE (Europe/Berlin here): a time they skip is moved on, one
// they show twice is the first, and the instant saved is the field's hint.
test("every kind of control shows the saved data after a post that comes back", async ({
  page,
}) => {
  await page.goto("/faults/controls");
  for (const [button, done, name, size, colour, urgent, due] of [
    ["Save and reload", "Saved and reloaded.", "Second", "large", "blue", true, "2025-03-30T02:30"],
    ["Save here", "Saved here.", "Third", "small", "red", false, "2025-10-26T02:30"],
  ] as const) {
    await field(page, "Name").fill(name);
    await field(page, "Size").selectOption(size);
    await page.getByRole("radio", { name: colour }).check();
    await field(page, "Urgent").setChecked(urgent);
    await field(page, "Due").fill(due);
    await page.getByRole("button", { name: button }).click();
    await expect(page.getByRole("status").filter({ hasText: done })).toBeVisible();
    await expect(field(page, "Name")).toHaveValue(name);
    await expect(field(page, "Size")).toHaveValue(size);
    await expect(page.getByRole("radio", { name: colour })).toBeChecked();
    await expect(field(page, "Urgent")).toBeChecked({ checked: urgent });
    const [shown, saved] = DATE_TIMES[due];
    await expect(field(page, "Due")).toHaveValue(shown);
    await expect(field(page, "Due")).toHaveAccessibleDescription(`Saved as ${saved}`);
  }
});

const DATE_TIMES = {
  "2025-03-30T02:30": ["2025-03-30T03:30", "2025-03-30T01:30:00.000Z"],
  "2025-10-26T02:30": ["2025-10-26T02:30", "2025-10-26T00:30:00.000Z"],
} as const;

test("a form on its way says so on its button; the API failing answers on it, typed kept", async ({
  page,
  things,
  javaScriptEnabled,
}) => {
  const held = holdAnswer(things, /^PATCH \/things\/3$/, (_req, res) => sendJson(res, 503, {}));
  await page.goto("/things/3/edit");
  await field(page, "Notes").fill("Typed before the API failed.");
  const posting = page.click("button:text('Save changes')");
  await expect.poll(held.arrived).toBe(true);
  if (javaScriptEnabled) {
    const saving = page.getByRole("button", { name: "Saving…" });
    await expect(saving).toHaveAttribute("aria-disabled", "true");
  }
  held.release();
  await posting;
  await expect(getAlerts(page).getByRole("heading")).toHaveText("Service unavailable");
  await expect(getAlerts(page)).toBeFocused();
  await expect(getAlerts(page)).toContainText("A service this page depends on is not available");
  await expect(field(page, "Notes")).toHaveValue("Typed before the API failed.");
  await expect(page).toHaveURL(/\/things\/3\/edit$/);
});
