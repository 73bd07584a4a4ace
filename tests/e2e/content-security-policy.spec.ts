import type { Page } from "@playwright/test";
import {
  expect,
  isSameWindow,
  markWindow,
  test,
  waitForEveryScript,
  waitForSettledPage,
} from "./fixtures";

/** Collects every CSP violation the page reports, from the console and from the DOM event. */
async function watchViolations(page: Page) {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.exposeFunction("reportViolation", (description: string) =>
    violations.push(description),
  );
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const { reportViolation } = window as unknown as { reportViolation: (d: string) => void };
      reportViolation(`${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  return violations;
}

/** The status of each document the page loads, as it came over the network (304: revalidated). */
async function watchDocumentStatuses(page: Page) {
  const devTools = await page.context().newCDPSession(page);
  const documents = new Set<string>();
  const statuses: number[] = [];
  devTools.on("Network.requestWillBeSent", ({ requestId, type }) => {
    if (type === "Document") documents.add(requestId);
  });
  devTools.on("Network.responseReceivedExtraInfo", ({ requestId, statusCode }) => {
    if (documents.has(requestId)) statuses.push(statusCode);
  });
  await devTools.send("Network.enable");
  return statuses;
}

test("a reload revalidates the page with 304, and its scripts still run under the policy", async ({
  page,
  consoleErrors,
  javaScriptEnabled,
}) => {
  const violations = await watchViolations(page);
  const documentStatuses = await watchDocumentStatuses(page);
  await page.goto("/");
  if (javaScriptEnabled) await markWindow(page);
  await page.reload();
  await expect.poll(() => documentStatuses).toEqual([200, 304]);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Web App");
  if (javaScriptEnabled) {
    // Hydrated again, with the nonce of the copy the browser kept: a client-side navigation works.
    await markWindow(page);
    await page.getByRole("banner").getByRole("link", { name: "Web App" }).click();
    await waitForSettledPage(page);
    expect(await isSameWindow(page)).toBe(true);
  }
  expect(violations).toEqual([]);
  expect(consoleErrors).toEqual([]);
});

for (const [name, path, status] of [
  ["the home page", "/", 200],
  ["the 404 page", "/no/such/page", 404],
] as const) {
  test(`${name} runs under an enforced Content-Security-Policy without violations`, async ({
    page,
    consoleErrors,
    javaScriptEnabled,
  }) => {
    const violations = await watchViolations(page);
    const response = await page.goto(path);
    expect(response?.status()).toBe(status);
    const policy = response?.headers()["content-security-policy"] ?? "";
    expect(policy).toMatch(/script-src 'nonce-[A-Za-z0-9+/]+=*' 'strict-dynamic'/);
    await waitForEveryScript(page);
    expect(violations).toEqual([]);
    if (javaScriptEnabled) {
      // Hydration done: client-side navigation works only when the nonce'd scripts ran.
      await page.getByRole("banner").getByRole("link").click();
      await expect(page).toHaveURL(/\/$/);
      await waitForSettledPage(page);
      const remixContext = () => typeof (window as { __remixContext?: unknown }).__remixContext;
      expect(await page.evaluate(remixContext)).toBe("object");
      expect(violations).toEqual([]);
    }
    expect(consoleErrors.filter((error) => !/status of 404/.test(error))).toEqual([]);
  });
}
