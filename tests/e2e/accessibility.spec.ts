import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { postTamperedTheme } from "./theme-form";

// axe runs as script, so both projects keep JavaScript on; the "disabled" one blocks the app's
// own scripts instead, which leaves the server-rendered page exactly as a no-JS browser has it.
test.use({ javaScriptEnabled: true });

test.beforeEach(async ({ page }, testInfo) => {
  if (testInfo.project.name === "javascript-disabled") {
    await page.route("**/build/**/*.js", (route) => route.abort());
  }
});

async function expectNoViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map(({ id, nodes }) => `${id}: ${nodes.map((node) => node.target).join(", ")}`)).toEqual(
    [],
  );
}

const cases = [
  { theme: "Light", colorScheme: "dark" },
  { theme: "Dark", colorScheme: "light" },
  { theme: "System", colorScheme: "dark" },
] as const;

for (const { theme, colorScheme } of cases) {
  test(`every page has no axe violations in the ${theme} theme (device set to ${colorScheme})`, async ({
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
    await expect(page.getByRole("main").getByRole("alert")).toContainText("Check your answers");
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme.toLowerCase());
    await expectNoViolations(page);
  });
}
