import { expect, test, waitForEveryScript } from "./fixtures";

test("the home page renders inside the layout", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page).toHaveTitle(/\S/);
  await expect(page.getByRole("banner").getByRole("link")).toHaveAttribute("href", "/");
  await expect(page.getByRole("main").getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByRole("contentinfo")).toContainText(/Version \d+\.\d+\.\d+/);
});

test("an unknown address renders the 404 page inside the layout", async ({ page }) => {
  const response = await page.goto("/this/does/not/exist");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("banner")).toBeVisible();
  await page.getByRole("main").getByRole("link", { name: "Go to the home page" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("main").getByRole("heading", { level: 1 })).toBeVisible();
});

test("the skip link is the first stop for the keyboard and moves focus to the main content", async ({
  page,
}) => {
  await page.goto("/");
  await page.keyboard.press("Tab");
  const skipLink = page.getByRole("link", { name: "Skip to main content" });
  await expect(skipLink).toBeFocused();
  await expect(skipLink).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("main")).toBeFocused();
});

test("pages load without console errors", async ({ page, consoleErrors }) => {
  await page.goto("/");
  await waitForEveryScript(page);
  expect(consoleErrors).toEqual([]);
  await page.goto("/missing-page");
  await waitForEveryScript(page);
  // Chromium reports the 404 document's own status as a console error; nothing else may appear.
  expect(consoleErrors.filter((e) => !/status of 404/.test(e))).toEqual([]);
});
