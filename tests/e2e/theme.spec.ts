import type { Page } from "@playwright/test";
import { expect, getAlerts, isSameWindow, markWindow, test } from "./fixtures";
import { postTamperedTheme } from "./theme-form";

const themeControl = (page: Page) => page.getByRole("banner").getByRole("group", { name: "Theme" });
const root = (page: Page) => page.locator("html");
const refusal = "Choose System, Light or Dark.";
const darkButton = (page: Page) => themeControl(page).getByRole("button", { name: "Dark" });

test("changes the theme from the home page; it survives reloads and the flash shows once", async ({
  page,
  javaScriptEnabled,
  consoleErrors,
}) => {
  await page.goto("/");
  await expect(root(page)).toHaveAttribute("data-theme", "system");
  if (javaScriptEnabled) await markWindow(page);

  await darkButton(page).click();

  await expect(root(page)).toHaveAttribute("data-theme", "dark");
  await expect(page.getByRole("status")).toHaveText("Theme set to Dark.");
  await expect(darkButton(page)).toHaveAttribute("aria-pressed", "true");
  await expect(page).toHaveURL(/\/$/);
  // With JavaScript the page switches in place; without it, the post comes back as a new page.
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);

  await page.reload();
  await expect(root(page)).toHaveAttribute("data-theme", "dark");
  await expect(page.getByText("Theme set to Dark.")).toHaveCount(0);
  await expect(darkButton(page)).toHaveAttribute("aria-pressed", "true");
  expect(consoleErrors).toEqual([]);
});

test("changes the theme from the 404 page and stays on it", async ({ page }) => {
  const response = await page.goto("/no/such/page?x=1");
  expect(response?.status()).toBe(404);

  await themeControl(page).getByRole("button", { name: "Light" }).click();

  await expect(root(page)).toHaveAttribute("data-theme", "light");
  await expect(page.getByRole("status")).toHaveText("Theme set to Light.");
  await expect(page).toHaveURL(/\/no\/such\/page\?x=1$/);
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();

  await page.reload();
  await expect(root(page)).toHaveAttribute("data-theme", "light");
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByText("Theme set to Light.")).toHaveCount(0);
});

test("the flash message is gone after the next navigation", async ({ page }) => {
  await page.goto("/no/such/page");
  await darkButton(page).click();
  await expect(page.getByRole("status")).toHaveText("Theme set to Dark.");

  await page.getByRole("main").getByRole("link", { name: "Go to the home page" }).click();

  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("main").getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByText("Theme set to Dark.")).toHaveCount(0);
  await expect(root(page)).toHaveAttribute("data-theme", "dark");
});

test("a tampered theme value is refused with the form and the error", async ({
  page,
  javaScriptEnabled,
}) => {
  await page.goto("/");
  await darkButton(page).evaluate((button) => button.setAttribute("value", "purple"));
  await darkButton(page).click();

  if (javaScriptEnabled) {
    // The header's fetcher shows the server's answer beside the control, on the same page.
    await expect(page.getByRole("banner").getByRole("alert")).toHaveText(refusal);
    await expect(themeControl(page)).toHaveAccessibleDescription(refusal);
    await expect(page).toHaveURL(/\/$/);
  } else {
    await expect(page).toHaveURL(/\/preferences\/theme$/);
    await expect(page.getByRole("heading", { level: 1, name: "Theme" })).toBeVisible();
    const summary = getAlerts(page);
    await expect(summary).toContainText("Check your answers");
    await expect(summary).toBeFocused();
    await expect(summary.getByRole("link")).toHaveText(refusal);
    const system = page.getByRole("main").getByRole("radio", { name: "System" });
    await expect(system).toHaveAttribute("aria-invalid", "true");
    await expect(system).toHaveAccessibleDescription(/Choose System, Light or Dark\./);
  }
  await expect(root(page)).toHaveAttribute("data-theme", "system");
});

test("the 400 page's form sets the theme and returns to the page the visitor came from", async ({
  page,
}) => {
  await page.goto("/somewhere");
  await postTamperedTheme(page);
  await expect(page).toHaveURL(/\/preferences\/theme$/);
  await expect(getAlerts(page)).toContainText(refusal);

  await page.getByRole("main").getByRole("radio", { name: "Dark" }).check();
  await page.getByRole("button", { name: "Save theme" }).click();

  await expect(page).toHaveURL(/\/somewhere$/);
  await expect(root(page)).toHaveAttribute("data-theme", "dark");
  await expect(page.getByRole("status")).toHaveText("Theme set to Dark.");
});

test("GET /preferences/theme answers 405 inside the layout", async ({ page }) => {
  const response = await page.goto("/preferences/theme");
  expect(response?.status()).toBe(405);
  expect(response?.headers()["allow"]).toBe("POST");
  await expect(page.getByRole("heading", { level: 1, name: "Not allowed here" })).toBeVisible();
  await expect(themeControl(page)).toBeVisible();
});

test("each theme paints its palette: dark when chosen, or when system meets a dark OS", async ({
  page,
}) => {
  const [light, dark] = ["rgb(255, 255, 255)", "rgb(17, 24, 39)"];
  await page.goto("/");
  for (const [theme, os, background] of [
    ["light", "dark", light],
    ["dark", "light", dark],
    ["system", "light", light],
    ["system", "dark", dark],
  ] as const) {
    await page.emulateMedia({ colorScheme: os });
    await root(page).evaluate((html, chosen) => (html.dataset.theme = chosen), theme);
    await expect(page.locator("body")).toHaveCSS("background-color", background);
  }
});
