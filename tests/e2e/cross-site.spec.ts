import { expect, test } from "./fixtures";

// A page on another site (served by the browser's request interception, never by this app)
// with a form that posts here: what a cross-site request forgery looks like to the server.
const OTHER_SITE = "http://other-site.test/";

test("a form on another site that posts here gets the 403 page", async ({ page, baseURL }) => {
  await page.route(OTHER_SITE, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!DOCTYPE html><html lang="en"><title>Other site</title><form method="post" action="${baseURL}/"><input name="a" value="1"><button>Send</button></form></html>`,
    }),
  );
  await page.goto(OTHER_SITE);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${baseURL}/` && r.request().method() === "POST"),
    page.getByRole("button", { name: "Send" }).click(),
  ]);
  expect(response.status()).toBe(403);
  await expect(page.getByRole("heading", { level: 1, name: "Request refused" })).toBeVisible();
  const home = page.getByRole("link", { name: "Go to the home page" });
  await expect(home).toHaveAttribute("href", "/");
});
