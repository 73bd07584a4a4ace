import type { Page } from "@playwright/test";
import { sendProblem } from "../support/things-api";
import { expect, getAlerts, holdAnswer, isSameWindow, markWindow, test } from "./things-fixture";

// The stock page: a form on every row (its quantity, Update, Remove), and one to finish the check.
const row = (page: Page, name: string) =>
  page
    .getByRole("list", { name: "Stock" })
    .getByRole("listitem")
    .filter({ hasText: `Quantity of ${name}` });
const quantity = (page: Page, name: string) =>
  page.getByLabel(`Quantity of ${name}`, { exact: true });
// Remove asks first, on its row (ConfirmButton).
async function remove(page: Page, name: string) {
  await row(page, name).getByText(`Remove ${name}`, { exact: true }).click();
  await page.click(`button:text('Yes, remove ${name}')`);
}

test("each row shows its own errors, typed then clicked, while another holds typing", async ({
  page,
  things,
  javaScriptEnabled,
  consoleErrors,
}) => {
  await page.goto("/things/stock");
  if (javaScriptEnabled) await markWindow(page);
  await quantity(page, "Dune").fill("12");
  await quantity(page, "Cedar").fill("lots");
  await page.click("button:text('Update Cedar')");

  await expect(getAlerts(page)).toHaveCount(1);
  await expect(row(page, "Cedar").getByRole("alert")).toBeFocused();
  await expect(row(page, "Cedar").getByRole("alert").getByRole("link")).toHaveText([
    "Enter the quantity as a whole number, like 12.",
  ]);
  await expect(quantity(page, "Cedar")).toHaveAttribute("aria-invalid", "true");
  await expect(quantity(page, "Cedar")).toHaveValue("lots");
  await expect(quantity(page, "Dune")).not.toHaveAttribute("aria-invalid");
  // A form per row: with JavaScript another row keeps what was typed; without, the page is new.
  await expect(quantity(page, "Dune")).toHaveValue(javaScriptEnabled ? "12" : "30");

  await quantity(page, "Cedar").fill("25");
  await page.click("button:text('Update Cedar')");
  await expect(page.getByRole("status").first()).toHaveText("Cedar now has 25.");
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
  expect(consoleErrors.filter((error) => !/status of 400/.test(error))).toEqual([]);
  await expect(quantity(page, "Cedar")).toHaveValue("25");
  // After the post, as before it: with JavaScript the other row keeps what was typed in it.
  await expect(quantity(page, "Dune")).toHaveValue(javaScriptEnabled ? "12" : "30");
  expect(things.things.get("3")).toMatchObject({ quantity: 25, version: 2 });
});

test("the API's 422 shows beside its row; Remove checks nothing typed in the row", async ({
  page,
  things,
}) => {
  await page.goto("/things/stock");
  await quantity(page, "Birch").fill("5");
  await page.click("button:text('Update Birch')");
  const refusal = "An archived thing cannot be in stock. Remove it instead.";
  await expect(row(page, "Birch").getByRole("alert")).toContainText(refusal);
  await expect(quantity(page, "Birch")).toHaveAccessibleDescription(refusal);
  await expect(getAlerts(page)).toHaveCount(1);

  await quantity(page, "Birch").fill("not a number");
  await remove(page, "Birch");
  await expect(page.getByRole("status").first()).toHaveText("Birch is out of stock.");
  await expect(row(page, "Birch")).toHaveCount(0);
  expect(things.things.get("2")).toMatchObject({ quantity: 0 });
});

test("only the button that posted says it is pending, on its own row", async ({
  page,
  things,
  javaScriptEnabled,
}) => {
  const held = holdAnswer(things, /^PUT \/things\/4\/quantity$/);
  await page.goto("/things/stock");
  const updating = page.click("button:text('Update Dune')");
  await expect.poll(held.arrived).toBe(true);
  if (javaScriptEnabled) {
    const pending = row(page, "Dune").getByRole("button", { name: "Updating…" });
    await expect(pending).toHaveAttribute("aria-disabled", "true");
    for (const name of ["Update Cedar", "Update Ember"]) {
      await expect(page.getByRole("button", { name })).not.toHaveAttribute("aria-disabled");
    }
  }
  held.release();
  await updating;
  await expect(page.getByRole("status").first()).toHaveText("Dune now has 30.");
});

test("a 409 shows on its row with the latest stock, or above the list if the row is gone", async ({
  page,
  things,
}) => {
  await page.goto("/things/stock");
  // Someone else counts Dune meanwhile: the row offers their count, not what was typed over it.
  things.things.set("4", { ...things.things.get("4")!, quantity: 35, version: 2 });
  await quantity(page, "Dune").fill("31");
  await page.click("button:text('Update Dune')");
  await expect(row(page, "Dune").getByRole("alert")).toContainText("The list now shows the latest");
  await expect(getAlerts(page)).toHaveCount(1);
  await expect(quantity(page, "Dune")).toHaveValue("35");
  await page.click("button:text('Update Dune')");
  await expect(page.getByRole("status").first()).toHaveText("Dune now has 35.");
  expect(things.things.get("4")).toMatchObject({ quantity: 35, version: 3 });

  const note = page.getByLabel("Note", { exact: true });
  await note.fill("Counted twice.");
  // Someone else takes Cedar out of stock meanwhile.
  things.things.set("3", { ...things.things.get("3")!, quantity: 0, version: 2 });
  await quantity(page, "Cedar").fill("7");
  await page.click("button:text('Update Cedar')");

  await expect(getAlerts(page)).toHaveCount(1);
  await expect(getAlerts(page).getByRole("heading")).toHaveText("Nothing was changed");
  await expect(getAlerts(page)).toContainText("The list now shows the latest stock");
  await expect(getAlerts(page)).toBeFocused();
  await expect(row(page, "Cedar")).toHaveCount(0);

  await note.fill("Counted twice.");
  await page.click("button:text('Finish the stock check')");
  await expect(getAlerts(page)).toContainText("Birch is archived but still in stock.");
  await expect(note).toHaveValue("Counted twice.");

  await remove(page, "Birch");
  await expect(row(page, "Birch")).toHaveCount(0);
  await page.click("button:text('Finish the stock check')");
  await expect(page).toHaveURL(/\/things$/);
  await expect(page.getByRole("status").first()).toHaveText("The stock check is finished.");
});

test("a failed call on a row shows the catalogue's page", async ({ page, things }) => {
  things.intercept(/^PUT \/things\/3\/quantity$/, (_req, res) => sendProblem(res, 503, {}));
  await page.goto("/things/stock");
  await remove(page, "Cedar");
  await expect(page.getByRole("heading", { level: 1, name: "Service unavailable" })).toBeVisible();
});
