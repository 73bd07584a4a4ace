import { expect, listedThings, isSameWindow, markWindow, test } from "./things-fixture";

test("deleting a thing asks on a page of its own, then lists the rest with a flash", async ({
  page,
  things,
  javaScriptEnabled,
}) => {
  await page.goto("/things/3");
  if (javaScriptEnabled) await markWindow(page);
  await page.getByRole("link", { name: "Delete Cedar" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Delete Cedar?" })).toBeVisible();
  await page.getByRole("link", { name: "Cancel" }).click();
  await expect(page).toHaveURL(/\/things\/3$/);
  expect(things.things.has("3")).toBe(true);

  await page.getByRole("link", { name: "Delete Cedar" }).click();
  await page.getByRole("button", { name: "Delete Cedar" }).click();

  await expect(page).toHaveURL(/\/things$/);
  await expect(page.getByRole("status")).toHaveText("The thing was deleted.");
  await expect(listedThings(page)).toHaveText(["Amber", "Birch", "Dune", "Ember", "Fern"]);
  expect(things.things.has("3")).toBe(false);
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
});

test("deleting a thing someone else deleted first shows the not-found page", async ({ page, things }) => {
  await page.goto("/things/3/delete");
  things.things.delete("3");
  await page.getByRole("button", { name: "Delete Cedar" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
});
