import type { Page } from "@playwright/test";
import { expect, listedThings, isSameWindow, markWindow, test } from "./things-fixture";

// A delete asks in place (ConfirmButton): opening the question loses nothing typed on the page.
const comment = (page: Page) => page.getByLabel("Comment", { exact: true });
const question = (page: Page) => page.getByText("Delete Cedar? This cannot be undone.");

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
