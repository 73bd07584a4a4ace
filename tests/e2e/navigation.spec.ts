import { expect, test } from "./fixtures";

test("a client-side navigation is announced, and a slow one shows a progress bar", async ({
  page,
  javaScriptEnabled,
}) => {
  await page.goto("/no/such/page");
  const announcer = page.locator('[aria-live="polite"]');

  if (!javaScriptEnabled) {
    // Without JavaScript a full page load tells assistive technology itself: nothing is rendered.
    await expect(announcer).toHaveCount(0);
    await expect(page.getByRole("progressbar")).toHaveCount(0);
    return;
  }

  await expect(announcer).toHaveText("");
  let releaseData: () => void = () => {};
  const dataHeld = new Promise<void>((resolve) => (releaseData = resolve));
  await page.route("**/*.data*", async (route) => {
    await dataHeld;
    await route.continue();
  });

  await page.getByRole("main").getByRole("link", { name: "Go to the home page" }).click();
  // Inside a landmark, as all of a page's content is (axe's rule "region").
  await expect(
    page.getByRole("banner").getByRole("progressbar", { name: "Loading" }),
  ).toBeVisible();
  releaseData();

  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("progressbar")).toHaveCount(0);
  await expect(announcer).toHaveText(await page.title());
});
