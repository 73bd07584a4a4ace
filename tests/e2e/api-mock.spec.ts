import ar from "../../app/i18n/shell.ar.server";
import en from "../../app/i18n/shell.en.server";
import { startMockedServer } from "../support/api-mock";
import { expect, markWindow, testOnServer } from "./fixtures";

// The reference feature as `npm run dev` serves it with no API running (server/dev.ts): the API
// mock answers every call from the feature's contract, or as picked on its page.
const test = testOnServer(
  () => startMockedServer(),
  (mocked) => mocked.url,
);

const NOTICE = en["layout.apiMock"];

test("every page of the reference feature renders, saying the API is a mock", async ({ page }) => {
  for (const [path, heading] of [
    ["/things", "Things"],
    ["/things/1", "Amber"],
    ["/things/1/edit", "Edit Amber"],
    ["/things/new", "Add a thing"],
    ["/things/stock", "Stock"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
    await expect(page.getByText(NOTICE)).toBeVisible();
  }
});

test.describe("in Arabic", () => {
  test.use({ locale: "ar" });

  test("the notice is in the page's language", async ({ page }) => {
    await page.goto("/things");
    await expect(page.getByText(ar["layout.apiMock"])).toBeVisible();
    await expect(page.getByRole("link", { name: ar["layout.apiMockLink"] })).toBeVisible();
    await expect(page.getByText(NOTICE)).toHaveCount(0);
  });
});

test("with “422, Name taken” picked, the API's message shows beside the name", async ({
  page,
  javaScriptEnabled,
}) => {
  await page.goto("/things/new");
  await page.getByRole("link", { name: "Pick its answers" }).click();
  await page.getByLabel(/^createThing/).selectOption({ label: "422, Name taken" });
  await page.getByRole("button", { name: "Use these answers" }).click();
  await expect(page.getByRole("status")).toHaveText("Your answers are saved.");

  await page.goto("/things/new");
  if (javaScriptEnabled) await markWindow(page);
  const field = (label: string) => page.getByRole("main").getByLabel(label, { exact: true });
  await field("Name").fill("Amber");
  await field("Quantity").fill("3");
  await field("Colour").selectOption("Red");
  await page.getByRole("button", { name: "Add thing" }).click();

  await expect(field("Name")).toHaveAttribute("aria-invalid", "true");
  const taken = "Another thing already has this name. Choose a different name.";
  await expect(field("Name")).toHaveAccessibleDescription(`Up to 60 characters. ${taken}`);
  await expect(field("Quantity")).toHaveValue("3");
});
