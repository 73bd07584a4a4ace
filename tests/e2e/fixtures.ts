import { test as base, expect, type Page } from "@playwright/test";

type Fixtures = {
  /** Console errors and uncaught page errors seen so far on `page`. */
  consoleErrors: string[];
};

export const test = base.extend<Fixtures>({
  // The server's address is known only after global setup has started it.
  baseURL: async ({}, use) => {
    await use(process.env.BASE_URL);
  },
  consoleErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    await use(errors);
  },
});

export { expect };

/** Tags a test that only means something with JavaScript: the javascript-disabled project leaves it out. */
export const JAVASCRIPT_ONLY = { tag: "@javascript-only" };

/** Marks the window so a test can tell a full page load (marker gone) from a client-side update. */
export async function markWindow(page: Page) {
  await page.evaluate(() => Object.assign(window, { untouchedSinceLoad: true }));
}

export function isSameWindow(page: Page) {
  return page.evaluate(() => "untouchedSinceLoad" in window);
}

/** The page's error summaries and refusals: its alerts, inside the main landmark. */
export function getAlerts(page: Page) {
  return page.getByRole("main").getByRole("alert");
}
