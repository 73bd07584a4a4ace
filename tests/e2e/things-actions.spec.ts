import type { Page } from "@playwright/test";
import { sendProblem } from "../support/things-api";
import {
  expect,
  getAlerts,
  listedThings,
  holdAnswer,
  isSameWindow,
  markWindow,
  test,
} from "./things-fixture";

// A thing's page is one form whose buttons name its actions: a comment, a status change, a delete.
const thing = (page: Page) => page.getByRole("region", { name: "Cedar" });
const comment = (page: Page) => thing(page).getByLabel("Comment", { exact: true });
const status = (page: Page) => thing(page).locator("dd").last();
const done = (page: Page) => thing(page).getByRole("status");
// The delete asks in place (ConfirmButton): opening the question loses nothing typed on the page.
const question = (page: Page) => page.getByText("Delete Cedar? This cannot be undone.");

test("a comment: an empty one shows its error, a sent one is listed, the box empty again", async ({
  page,
  things,
  javaScriptEnabled,
  consoleErrors,
}) => {
  await page.goto("/things/3");
  if (javaScriptEnabled) await markWindow(page);
  await comment(page).click();
  await page.click("button:text('Add comment')");

  await expect(getAlerts(page)).toHaveCount(1);
  await expect(getAlerts(page)).toBeFocused();
  await expect(getAlerts(page).getByRole("link")).toHaveText(["Enter a comment."]);
  await expect(comment(page)).toHaveAccessibleDescription("Up to 500 characters. Enter a comment.");
  await expect(thing(page).getByRole("button", { name: "Archive Cedar" })).toBeVisible();

  await comment(page).fill("Smells of pine.");
  await page.click("button:text('Add comment')");

  await expect(page.getByRole("status").first()).toHaveText("Your comment was added.");
  await expect(thing(page).getByRole("list", { name: "Comments" })).toHaveText("Smells of pine.");
  await expect(comment(page)).toHaveValue("");
  await expect(getAlerts(page)).toHaveCount(0);
  expect(things.things.get("3")?.comments).toEqual([{ id: "1", text: "Smells of pine." }]);
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
  expect(consoleErrors.filter((error) => !/status of 400/.test(error))).toEqual([]);
});

test("a status change checks no comment being typed, and keeps it, refused or done", async ({
  page,
  things,
}) => {
  await page.goto("/things/3");
  await expect(status(page)).toHaveText("Active");
  await comment(page).fill("Half a thought");
  // Someone else archives the thing meanwhile.
  things.things.set("3", { ...things.things.get("3")!, status: "archived", version: 2 });
  await page.click("button:text('Archive Cedar')");

  await expect(getAlerts(page)).toHaveCount(1);
  await expect(getAlerts(page).getByRole("heading")).toHaveText("Nothing was changed");
  const refusal = "Someone else changed this thing meanwhile, so your change was not saved.";
  await expect(thing(page).getByRole("alert")).toContainText(refusal);
  await expect(getAlerts(page)).toBeFocused();
  await expect(status(page)).toHaveText("Archived");
  const listed = page.getByRole("list", { name: "Things" }).getByRole("listitem");
  await expect(listed.nth(2)).toHaveText("Cedar (Archived)");
  await expect(comment(page)).toHaveValue("Half a thought");

  await page.click("button:text('Restore Cedar')");
  await expect(done(page)).toHaveText("Cedar is now active.");
  await expect(status(page)).toHaveText("Active");
  await expect(getAlerts(page)).toHaveCount(0);
  await expect(comment(page)).toHaveValue("Half a thought");
  expect(things.things.get("3")).toMatchObject({ status: "active", version: 3 });
  await expect(listedThings(page).filter({ hasText: "Cedar" })).toHaveCount(1);
});

test("only the button that posted is pending; the API's 403 is on the form", async ({
  page,
  things,
  javaScriptEnabled,
}) => {
  const held = holdAnswer(things, /^POST \/things\/3\/status$/, (_req, res) =>
    sendProblem(res, 403, { title: "Forbidden" }),
  );
  await page.goto("/things/3");
  await comment(page).fill("Kept");
  const archiving = page.click("button:text('Archive Cedar')");
  await expect.poll(held.arrived).toBe(true);
  if (javaScriptEnabled) {
    const button = (name: string) => thing(page).getByRole("button", { name });
    await expect(button("Archive…")).toHaveAttribute("aria-disabled", "true");
    await expect(button("Add comment")).not.toHaveAttribute("aria-disabled");
  }
  held.release();
  await archiving;

  await expect(getAlerts(page)).toHaveText(/You may not change the status of this thing\./);
  await expect(getAlerts(page).getByRole("heading")).toHaveText("Not allowed");
  await expect(getAlerts(page)).toHaveCount(1);
  await expect(thing(page).getByRole("button", { name: "Archive Cedar" })).toBeVisible();
  await expect(comment(page)).not.toHaveAttribute("aria-invalid");
  await expect(comment(page)).toHaveValue("Kept");
  expect(things.things.get("3")?.status).toBe("active");
});

test("deleting a thing asks on its page, then lists the rest with a flash", async ({
  page,
  things,
  javaScriptEnabled,
}) => {
  await page.goto("/things/3");
  if (javaScriptEnabled) await markWindow(page);
  await comment(page).fill("Half a thought");
  await page.getByText("Delete Cedar", { exact: true }).click();
  await expect(question(page)).toBeVisible();
  await expect(comment(page)).toHaveValue("Half a thought");
  await page.getByText("Delete Cedar", { exact: true }).click();
  await expect(question(page)).toBeHidden();
  expect(things.things.has("3")).toBe(true);

  await page.getByText("Delete Cedar", { exact: true }).click();
  await page.getByRole("button", { name: "Yes, delete Cedar" }).click();

  await expect(page).toHaveURL(/\/things$/);
  await expect(page.getByRole("status")).toHaveText("The thing was deleted.");
  await expect(listedThings(page)).toHaveText(["Amber", "Birch", "Dune", "Ember", "Fern"]);
  expect(things.things.has("3")).toBe(false);
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
});

test("deleting a thing someone else deleted first shows its not-found page", async ({
  page,
  things,
}) => {
  await page.goto("/things/3");
  things.things.delete("3");
  await page.getByText("Delete Cedar", { exact: true }).click();
  await page.getByRole("button", { name: "Yes, delete Cedar" }).click();
  await expect(page.getByRole("heading", { name: "No thing with id 3" })).toBeVisible();
});
