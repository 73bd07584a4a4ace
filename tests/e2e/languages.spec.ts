import type { Page } from "@playwright/test";
import { expect, getAlerts, JAVASCRIPT_ONLY, test, waitForHydration } from "./fixtures";
import { getTextOutsideCatalogue } from "./pseudo-locale";
import { postTamperedTheme } from "./theme-form";

const root = (page: Page) => page.locator("html");
const languageButton = (page: Page, name: string) =>
  page
    .getByRole("banner")
    .getByRole("group", { name: /^(Language|اللغة)$/ })
    .getByRole("button", { name });

test.describe("a browser asking for Arabic (Accept-Language: ar-EG)", () => {
  test.use({ locale: "ar-EG" });

  test("gets the page in Arabic, right to left", async ({ page }) => {
    const response = await page.goto("/no/such/page");
    expect(response?.headers()["content-language"]).toBe("ar");
    await expect(root(page)).toHaveAttribute("lang", "ar");
    await expect(root(page)).toHaveAttribute("dir", "rtl");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("الصفحة غير موجودة");
    await expect(page).toHaveTitle("الصفحة غير موجودة · Web App");
    await expect(languageButton(page, "العربية")).toHaveAttribute("aria-pressed", "true");
  });

  test("hydrates it without a warning", JAVASCRIPT_ONLY, async ({ page, consoleErrors }) => {
    await page.goto("/");
    await waitForHydration(page);
    await page.goto("/no/such/page");
    await waitForHydration(page);
    expect(consoleErrors.filter((error) => !/status of 404/.test(error))).toEqual([]);
  });
});

test("choosing Arabic keeps the page and the address, right to left, and is remembered", async ({
  page,
  context,
}) => {
  await page.goto("/no/such/page?x=1");
  await expect(root(page)).toHaveAttribute("dir", "ltr");

  await languageButton(page, "العربية").click();

  await expect(page).toHaveURL(/\/no\/such\/page\?x=1$/);
  await expect(root(page)).toHaveAttribute("lang", "ar");
  await expect(root(page)).toHaveAttribute("dir", "rtl");
  await expect(page.getByRole("status")).toHaveText("أصبح الموقع باللغة العربية.");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("الصفحة غير موجودة");

  const nextVisit = await context.newPage();
  await nextVisit.goto("/");
  await expect(root(nextVisit)).toHaveAttribute("dir", "rtl");
  await expect(nextVisit.getByText("أصبح الموقع باللغة العربية.")).toHaveCount(0);

  await languageButton(nextVisit, "English").click();
  await expect(root(nextVisit)).toHaveAttribute("lang", "en");
  await expect(nextVisit.getByRole("status")).toHaveText("The site is now in English.");
});

for (const [locale, dir] of [
  ["en-XA", "ltr"],
  ["ar-XB", "rtl"],
] as const) {
  test.describe(`the pseudo-locale ${locale}`, () => {
    test.use({ locale });

    test("shows no word that its catalogue did not give", async ({ page, consoleErrors }) => {
      for (const path of ["/", "/no/such/page", "/preferences/theme", "/preferences/language"]) {
        await page.goto(path);
        await expect(root(page)).toHaveAttribute("dir", dir);
        expect(await getTextOutsideCatalogue(page), path).toEqual([]);
      }
      // A refused theme: the form, its summary and the field's error.
      await page.goto("/");
      await postTamperedTheme(page);
      await expect(getAlerts(page)).toBeVisible();
      expect(await getTextOutsideCatalogue(page), "the refused theme").toEqual([]);
      expect(consoleErrors.filter((error) => !/status of 40\d/.test(error))).toEqual([]);
    });
  });
}
