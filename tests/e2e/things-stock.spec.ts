import type { ServerResponse } from "node:http";
import type { Page } from "@playwright/test";
import { shellMessages } from "../../app/i18n/messages.server";
import { thingMessages } from "../fixtures/reference-app/app/i18n/things.server";
import { sendProblem } from "../support/things-api";
import { sendJson } from "../support/upstream";
import { expect, getAlerts, holdAnswer, isSameWindow, markWindow, test } from "./things-fixture";

// The stock page: one form, a group for each row (its quantity, Update, Remove), and the note that
// finishes the check. A row's buttons name it, so a reply to them lands on that row.
const row = (page: Page, name: string) => page.getByRole("group", { name, exact: true });
const quantity = (page: Page, name: string) =>
  page.getByLabel(`Quantity of ${name}`, { exact: true });
const note = (page: Page) => page.getByRole("textbox", { name: "Note" });
// Remove asks first, on its row (ConfirmButton).
async function remove(page: Page, name: string) {
  await row(page, name).getByText(`Remove ${name}`, { exact: true }).click();
  await page.click(`button:text('Yes, remove ${name}')`);
}

test("a row's errors show beside it, and what was typed elsewhere stays, with or without JavaScript", async ({
  page,
  things,
  javaScriptEnabled,
  consoleErrors,
}) => {
  await page.goto("/things/stock");
  if (javaScriptEnabled) await markWindow(page);
  await quantity(page, "Dune").fill("12");
  await quantity(page, "Cedar").fill("lots");
  await note(page).fill("Counted twice.");
  await page.click("button:text('Update Cedar')");

  await expect(getAlerts(page)).toHaveCount(1);
  await expect(getAlerts(page)).toBeFocused();
  await expect(getAlerts(page).getByRole("link")).toHaveText([
    "Enter the quantity as a whole number, like 12.",
  ]);
  await expect(quantity(page, "Cedar")).toHaveAttribute("aria-invalid", "true");
  await expect(quantity(page, "Cedar")).toHaveValue("lots");
  await expect(quantity(page, "Dune")).not.toHaveAttribute("aria-invalid");
  await expect(quantity(page, "Dune")).toHaveValue("12");
  await expect(note(page)).toHaveValue("Counted twice.");

  await quantity(page, "Cedar").fill("25");
  await page.click("button:text('Update Cedar')");
  await expect(page.getByRole("status").first()).toHaveText("Cedar now has 25.");
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
  expect(consoleErrors.filter((error) => !/status of 400/.test(error))).toEqual([]);
  await expect(quantity(page, "Cedar")).toHaveValue("25");
  expect(things.things.get("3")).toMatchObject({ quantity: 25, version: 2 });
});

test("the API's 422 shows beside its row's quantity; Remove checks nothing typed in the row", async ({
  page,
  things,
}) => {
  await page.goto("/things/stock");
  await quantity(page, "Birch").fill("5");
  await page.click("button:text('Update Birch')");
  const refusal = "An archived thing cannot be in stock. Remove it instead.";
  await expect(getAlerts(page)).toContainText(refusal);
  await expect(quantity(page, "Birch")).toHaveAccessibleDescription(refusal);

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

test("a 409 shows on its row with the latest stock, or above the rows if the row is gone", async ({
  page,
  things,
}) => {
  await page.goto("/things/stock");
  // Someone else counts Dune meanwhile: the row offers their count, not what was typed over it.
  things.things.set("4", { ...things.things.get("4")!, quantity: 35, version: 2 });
  await note(page).fill("Counted twice.");
  await quantity(page, "Dune").fill("31");
  await page.click("button:text('Update Dune')");
  await expect(row(page, "Dune")).toHaveAccessibleDescription(/The list now shows the latest/);
  await expect(getAlerts(page).getByRole("link")).toHaveText(/The list now shows the latest/);
  await expect(quantity(page, "Dune")).toHaveValue("35");
  await expect(note(page)).toHaveValue("Counted twice.");
  await page.click("button:text('Update Dune')");
  await expect(page.getByRole("status").first()).toHaveText("Dune now has 35.");
  expect(things.things.get("4")).toMatchObject({ quantity: 35, version: 3 });

  // Someone else takes Cedar out of stock meanwhile.
  things.things.set("3", { ...things.things.get("3")!, quantity: 0, version: 2 });
  await quantity(page, "Cedar").fill("7");
  await page.click("button:text('Update Cedar')");
  await expect(getAlerts(page).getByRole("heading")).toHaveText("Nothing was changed");
  await expect(getAlerts(page)).toContainText("The list now shows the latest stock");
  await expect(getAlerts(page)).toBeFocused();
  await expect(row(page, "Cedar")).toHaveCount(0);

  await note(page).fill("Counted twice.");
  await page.click("button:text('Finish the stock check')");
  await expect(getAlerts(page)).toContainText("An archived thing is still in stock.");
  await expect(note(page)).toHaveValue("Counted twice.");
  await remove(page, "Birch");
  await expect(row(page, "Birch")).toHaveCount(0);
  await page.click("button:text('Finish the stock check')");
  await expect(page).toHaveURL(/\/things$/);
  await expect(page.getByRole("status").first()).toHaveText("The stock check is finished.");
});

// The page's words in each language: the API's 422 and 409, and the API failing, land on the row
// in the page's language; the API's own words no key says are marked as the API's language.
for (const locale of ["en", "ar"] as const) {
  test.describe(`in ${locale}`, () => {
    test.use({ locale });
    const words = { ...shellMessages[locale], ...thingMessages[locale] };

    test("a row's refusals and the API failing show on that row, what was typed kept", async ({
      page,
      things,
    }) => {
      const cedar = page.getByRole("group", { name: "Cedar", exact: true });
      const typed = page.getByRole("textbox").last();
      await page.goto("/things/stock");
      await typed.fill("Counted twice.");
      const birch = page.getByRole("group", { name: "Birch", exact: true }).getByRole("textbox");
      await birch.fill("5");
      await page.getByRole("group", { name: "Birch" }).getByRole("button").first().click();
      await expect(birch).toHaveAccessibleDescription(words["things.stock.archivedInStock"]);

      things.things.set("3", { ...things.things.get("3")!, quantity: 15, version: 2 });
      await cedar.getByRole("button").first().click();
      await expect(cedar).toHaveAccessibleDescription(words["things.changed.stock"]);
      await expect(getAlerts(page).getByRole("heading")).toHaveText(
        words["errors.NOT_CHANGED.title"],
      );
      await expect(typed).toHaveValue("Counted twice.");

      const errors = [{ pointer: "#/version", detail: "Stale version." }];
      const refuse = (_req: unknown, res: ServerResponse) => sendProblem(res, 422, { errors });
      things.intercept(/^PUT \/things\/3\/quantity$/, refuse, 1);
      await cedar.getByRole("textbox").fill("16");
      await cedar.getByRole("button").first().click();
      await expect(getAlerts(page).locator('[lang="en"]')).toHaveText("Stale version.");

      things.intercept(/^PUT \/things\/3\/quantity$/, (_req, res) => sendJson(res, 503, {}));
      await cedar.getByRole("button").first().click();
      await expect(cedar).toHaveAccessibleDescription(words["errors.UPSTREAM_UNAVAILABLE.message"]);
      await expect(getAlerts(page).getByRole("heading")).toHaveText(
        words["errors.UPSTREAM_UNAVAILABLE.title"],
      );
      await expect(cedar.getByRole("textbox")).toHaveValue("16");
      await expect(typed).toHaveValue("Counted twice.");
    });
  });
}
