import AxeBuilder from "@axe-core/playwright";
import type { Page, TestInfo } from "@playwright/test";
import { expect, waitForSettledPage } from "./fixtures";

/**
 * axe runs as script, so accessibility tests keep JavaScript on; in "javascript-disabled" this
 * blocks the app's scripts: the server-rendered page as a browser without JavaScript has it.
 */
export async function blockAppScriptsWithoutJavaScript(page: Page, testInfo: TestInfo) {
  if (testInfo.project.name === "javascript-disabled") {
    await page.route("**/build/**/*.js", (route) => route.abort());
  }
}

/** axe on the page once it has settled: the state the test means, not one passing by. */
export async function expectNoViolations(page: Page) {
  await waitForSettledPage(page);
  // Only violations are read: axe then skips collecting the details of every rule that passed.
  const { violations } = await new AxeBuilder({ page })
    .options({ resultTypes: ["violations"] })
    .analyze();
  expect(
    violations.map(({ id, nodes }) => `${id}: ${nodes.map((node) => node.target).join(", ")}`),
  ).toEqual([]);
}
