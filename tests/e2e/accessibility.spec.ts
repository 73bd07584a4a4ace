import { blockAppScriptsWithoutJavaScript, expectNoViolations } from "./axe";
import { expect, getAlerts, test } from "./fixtures";
import { postTamperedTheme } from "./theme-form";

test.use({ javaScriptEnabled: true });

test.beforeEach(async ({ page }, testInfo) => blockAppScriptsWithoutJavaScript(page, testInfo));

const cases = [
  { theme: "Light", colorScheme: "dark" },
  { theme: "Dark", colorScheme: "light" },
  { theme: "System", colorScheme: "dark" },
] as const;

for (const { theme, colorScheme } of cases) {
  test(`the shell's pages have no axe violations in the ${theme} theme (device set to ${colorScheme})`, async ({
    page,
  }) => {
    await page.emulateMedia({ colorScheme });
    await page.goto("/");
    await page.getByRole("banner").getByRole("button", { name: theme }).click();
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme.toLowerCase());
    await expect(page.getByRole("status")).toHaveText(`Theme set to ${theme}.`);
    await expectNoViolations(page);

    await page.reload();
    await expectNoViolations(page);

    await page.goto("/no/such/page");
    await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
    await expectNoViolations(page);

    await page.goto("/preferences/theme");
    await expect(page.getByRole("heading", { level: 1, name: "Not allowed here" })).toBeVisible();
    await expectNoViolations(page);

    await page.goto("/");
    await postTamperedTheme(page);
    await expect(getAlerts(page)).toContainText("Check your answers");
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme.toLowerCase());
    await expectNoViolations(page);
  });
}
