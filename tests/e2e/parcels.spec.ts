import { sendJson } from "../support/upstream";
import { getAlerts } from "./fixtures";
import { getTextOutsideCatalogue } from "./pseudo-locale";
import { expect, test } from "./with-upstream";

// The second feature of the reference app (routes/_site.parcels.tsx): a screen added beside the
// things, which the shell's own tests take without an edit.
test.use({ build: "reference-app" });

test.beforeEach(({ upstream }) => {
  const parcels = [{ id: "1", label: "Oak crate" }];
  upstream.handle((req, res, body) => {
    if (req.method === "GET") return sendJson(res, 200, { items: parcels });
    parcels.unshift({ id: String(parcels.length + 1), ...(JSON.parse(body) as { label: string }) });
    sendJson(res, 201, parcels[0]);
  });
});

test("lists the parcels, refuses an empty label on its form, and adds one", async ({ page }) => {
  await page.goto("/parcels");
  const listed = page.getByRole("list", { name: "Parcels" }).getByRole("listitem");
  await expect(listed).toHaveText(["Oak crate"]);
  const add = page.getByRole("button", { name: "Add parcel" });
  await add.click();
  await expect(getAlerts(page)).toContainText("Enter a label.");

  await page.getByLabel("Label").fill("Tin box");
  await add.click();
  await expect(page.getByRole("status")).toHaveText("Tin box is added.");
  await expect(listed).toHaveText(["Tin box", "Oak crate"]);
});

test.describe("in the pseudo-locale ar-XB", () => {
  test.use({ locale: "ar-XB" });

  test("shows no word that its catalogue or the API did not give", async ({ page }) => {
    await page.goto("/parcels");
    await expect(page.locator("html")).toHaveAttribute("dir", "rtl");
    await page.getByRole("button").last().click();
    await expect(getAlerts(page)).toBeVisible();
    expect(await getTextOutsideCatalogue(page)).toEqual([]);
  });
});
