import { test as base, expect } from "@playwright/test";

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
