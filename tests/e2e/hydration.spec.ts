import { expect, test } from "./fixtures";

test("a page that opts out of hydration loads no script, and its forms still work", async ({
  page,
}) => {
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(request.url());
  });

  const response = await page.goto("/preferences/theme");
  expect(response?.status()).toBe(405);
  // Loaded: a script the document names has been asked for by now.
  expect(scripts).toEqual([]);

  await page.getByRole("banner").getByRole("button", { name: "Dark" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(page.getByRole("status")).toHaveText("Theme set to Dark.");
});
