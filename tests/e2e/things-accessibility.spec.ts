import { blockAppScriptsWithoutJavaScript, expectNoViolations } from "./axe";
import { expect, getAlerts, test } from "./things-fixture";

test.use({ javaScriptEnabled: true });

test.beforeEach(async ({ page }, testInfo) => blockAppScriptsWithoutJavaScript(page, testInfo));

for (const [path, heading] of [
  ["/things", "Things"],
  ["/things/3", "Cedar"],
  ["/things/new", "Add a thing"],
  ["/things/3/edit", "Edit Cedar"],
  ["/things/stock", "Stock"],
  ["/things/99", "No thing with id 99"],
] as const) {
  test(`the reference feature's ${path} has no axe violations`, async ({ page }) => {
    await page.goto(path);
    await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
    await expectNoViolations(page);
  });
}

test("the add and edit forms have no axe violations with their errors", async ({
  page,
  things,
}) => {
  await page.goto("/things/new");
  await page.getByRole("button", { name: "Add thing" }).click();
  await expect(getAlerts(page)).toContainText("Enter a name.");
  await expectNoViolations(page);

  things.things.set("3", { ...things.things.get("3")!, version: 2 });
  await page.goto("/things/3/edit");
  things.things.set("3", { ...things.things.get("3")!, version: 3 });
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(getAlerts(page)).toContainText("Someone else changed this thing");
  await expectNoViolations(page);
});

test("the stock page has no axe violations, with a row's errors and another's refusal", async ({
  page,
  things,
}) => {
  await page.goto("/things/stock");
  await page.getByLabel("Quantity of Cedar", { exact: true }).fill("lots");
  await page.getByRole("button", { name: "Update Cedar" }).click();
  await expect(getAlerts(page)).toContainText("Enter the quantity as a whole number");
  await expectNoViolations(page);

  things.things.set("4", { ...things.things.get("4")!, version: 2 });
  await page.getByRole("button", { name: "Update Dune" }).click();
  // The refusal is Dune's row's own: said on the row and linked from the summary.
  const dune = page.getByRole("group", { name: "Dune", exact: true });
  await expect(dune).toHaveAccessibleDescription(/Someone else changed/);
  await expectNoViolations(page);
});

test("a thing's page has no axe violations, with errors and the delete's question", async ({
  page,
  things,
}) => {
  await page.goto("/things/3?status=active");
  await page.getByRole("button", { name: "Add comment" }).click();
  await expect(getAlerts(page)).toContainText("Enter a comment.");
  await expectNoViolations(page);

  things.things.set("3", { ...things.things.get("3")!, version: 2 });
  await page.getByRole("button", { name: "Archive Cedar" }).click();
  const refused = getAlerts(page).filter({ hasText: "Someone else changed this thing" });
  await expect(refused).toBeVisible();
  await page.getByText("Delete Cedar", { exact: true }).click();
  await expect(page.getByRole("button", { name: "Yes, delete Cedar" })).toBeVisible();
  await expectNoViolations(page);
});
