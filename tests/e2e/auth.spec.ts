import { answerThingsApi, startSignInApp } from "../support/oidc-app";
import type { Page } from "@playwright/test";
import { expect, navigateInApp, testOnServer } from "./fixtures";

// The reference app with sign-in through a real OpenID provider; its dev login pages are forms.
async function startApp() {
  const signInApp = await startSignInApp({ referenceApp: true });
  signInApp.upstream.handle(answerThingsApi(() => true));
  return signInApp;
}
const test = testOnServer(startApp, (signInApp) => signInApp.app.url);

/** Signs `login` in on the provider's dev login page, where a sign-in has taken the visitor. */
async function signInAtProvider(page: Page, login: string) {
  await page.getByPlaceholder("Enter any login").fill(login);
  await page.getByPlaceholder("and password").fill("any");
  await page.getByRole("button", { name: "Sign-in" }).click();
}

const signInLink = (page: Page) => page.locator("header").getByRole("link", { name: "Sign in" });

async function signOut(page: Page, baseURL?: string) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("button", { name: "Yes, sign me out" }).click();
  await expect(page).toHaveURL(`${baseURL}/`);
}

test("a visitor signs in, sees their name, makes a guarded write and signs out", async ({
  page,
  baseURL,
}) => {
  await page.goto("/things/1/feature");
  await signInAtProvider(page, "ada");
  await expect(page).toHaveURL(`${baseURL}/things/1/feature`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Feature Anchor");
  await expect(page.locator("header")).toContainText("Ada Lovelace");

  await page.getByRole("button", { name: "Feature Anchor" }).click();
  await expect(page).toHaveURL(`${baseURL}/things/1`);
  await expect(page.getByRole("status")).toContainText("Anchor is now featured.");

  await signOut(page, baseURL);
  await page.goto("/things");
  await expect(signInLink(page)).toBeVisible();
  const cookies = await page.context().cookies(baseURL);
  expect(cookies.map((cookie) => cookie.name)).not.toContain("session");
});

test("a visitor without the role is refused with the 403 page", async ({ page }) => {
  await page.goto("/things");
  await signInLink(page).click();
  await signInAtProvider(page, "bob");
  await expect(page.locator("header")).toContainText("Bob Visitor");
  await page.goto("/things/1/feature");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Not allowed");
});

test("a signed-out visitor navigating to a guarded page signs in and lands on it", async ({
  page,
  baseURL,
  javaScriptEnabled,
}) => {
  await page.goto("/things");
  // A client-side navigation where JavaScript runs (the loader's redirect comes as data).
  if (javaScriptEnabled) await navigateInApp(page, "/things/1/feature");
  else await page.goto("/things/1/feature");
  await signInAtProvider(page, "ada");
  await expect(page).toHaveURL(`${baseURL}/things/1/feature`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Feature Anchor");
});

test("after signing out, Back shows no signed-in page", async ({ page, baseURL }) => {
  await page.goto("/things");
  await signInLink(page).click();
  await signInAtProvider(page, "ada");
  await page.goto("/things/1");
  await expect(page.locator("header")).toContainText("Ada Lovelace");
  const entries = () => page.evaluate(() => history.length);
  const signedInEntry = await entries();
  await signOut(page, baseURL);
  // Back over the provider's sign-out pages in one step, as a long press on Back does: stepping
  // one by one races the provider's redirects and the page's own router.
  const steps = (await entries()) - signedInEntry;
  await page.evaluate((delta) => history.go(-delta), steps);
  await expect(page).toHaveURL(`${baseURL}/things/1`);
  await expect(signInLink(page)).toBeVisible();
  await expect(page.locator("body")).not.toContainText("Ada Lovelace");
});
