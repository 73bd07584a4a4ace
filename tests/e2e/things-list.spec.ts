import { sendJson } from "../support/upstream";
import type { Page } from "@playwright/test";
import { expect, listedThings, isSameWindow, markWindow, test } from "./things-fixture";

const searchbox = (page: Page) => page.getByRole("searchbox", { name: "Search things by name" });

async function search(page: Page, text: string) {
  await searchbox(page).fill(text);
  await page.getByRole("button", { name: "Search" }).click();
}

const statusLink = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Status" }).getByRole("link", { name });

test("lists things, searches and pages through them, with the address as the state", async ({
  page,
  javaScriptEnabled,
}) => {
  await page.goto("/things");
  if (javaScriptEnabled) await markWindow(page);
  await expect(listedThings(page)).toHaveText(["Amber", "Birch", "Cedar", "Dune", "Ember"]);
  const pages = page.getByRole("navigation", { name: "Pages" });
  await expect(pages).toContainText("Page 1 of 3");

  await pages.getByRole("link", { name: "Next page" }).click();
  await expect(page).toHaveURL(/\/things\?page=2$/);
  await expect(pages).toContainText("Page 2 of 3");
  await expect(listedThings(page)).toHaveText(["Fern", "Granite", "Harbour", "Iris", "Juniper"]);

  await search(page, "e");
  await expect(page).toHaveURL(/\/things\?q=e$/);
  await expect(pages).toContainText("Page 1 of 2");
  await expect(listedThings(page)).toHaveText(["Amber", "Cedar", "Dune", "Ember", "Fern"]);

  await pages.getByRole("link", { name: "Next page" }).click();
  await expect(page).toHaveURL(/\/things\?q=e&page=2$/);
  await expect(listedThings(page)).toHaveText(["Granite", "Juniper"]);
  await expect(searchbox(page)).toHaveValue("e");

  await search(page, "nothing like it");
  await expect(page.getByText("No things match “nothing like it”.")).toBeVisible();
  // With JavaScript it all happened in one page; without, each step was a page load.
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
});

test("opens a thing beside the list, which keeps its search and page", async ({
  page,
  javaScriptEnabled,
}) => {
  await page.goto("/things?q=e&page=2");
  if (javaScriptEnabled) await markWindow(page);
  await page.getByRole("list", { name: "Things" }).getByRole("link", { name: "Granite" }).click();

  await expect(page).toHaveURL(/\/things\/7\?q=e&page=2$/);
  const details = page.getByRole("region", { name: "Granite" });
  await expect(details).toContainText("Quantity60");
  await expect(details).toContainText("ColourRed");
  await expect(details).toContainText("FeaturedYes");
  const granite = page.getByRole("link", { name: "Granite", exact: true });
  await expect(granite).toHaveAttribute("aria-current", "page");
  await expect(listedThings(page)).toHaveText(["Granite", "Juniper"]);
  await expect(page).toHaveTitle(/^Granite · /);
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
});

test("filters by status from the address; a search keeps the filter, a bad page number shows page 1", async ({
  page,
  things,
}) => {
  things.things.set("7", { ...things.things.get("7")!, status: "archived" });
  await page.goto("/things?page=0");
  await expect(page.getByRole("navigation", { name: "Pages" })).toContainText("Page 1 of 3");
  await statusLink(page, "Archived").click();

  await expect(page).toHaveURL(/\/things\?status=archived$/);
  await expect(listedThings(page)).toHaveText(["Birch", "Granite"]);
  await search(page, "gran");
  await expect(page).toHaveURL(/\/things\?q=gran&status=archived$/);
  await expect(listedThings(page)).toHaveText(["Granite"]);

  await statusLink(page, "Any status").click();
  await expect(page).toHaveURL(/\/things\?q=gran$/);
  await expect(page.getByRole("list", { name: "Things" })).toHaveText("Granite (Archived)");
});

test("shows each failure of the API as the catalogue's page, inside the layout", async ({
  page,
  things,
}) => {
  let response = await page.goto("/things/99");
  expect(response?.status()).toBe(404);
  // The thing's page words its own 404; the catalogue's words stay for every other failure.
  await expect(page.getByRole("heading", { level: 1, name: "No thing with id 99" })).toBeVisible();
  // The list still shows: only the thing's part of the page failed.
  await expect(listedThings(page)).toHaveCount(5);

  things.intercept(/^GET \/things\/3$/, (_req, res) => sendJson(res, 503, {}));
  await page.getByRole("link", { name: "Cedar" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Service unavailable" })).toBeVisible();
  await expect(listedThings(page)).toHaveCount(5);

  const notAList = { items: "not a list" };
  things.intercept(/^GET \/things\?/, (_req, res) => sendJson(res, 200, notAList), 1);
  response = await page.goto("/things");
  expect(response?.status()).toBe(502);
  await expect(page.getByRole("heading", { level: 1, name: "Service error" })).toBeVisible();

  things.intercept(/^GET \/things\/1$/, () => {}); // never answers
  response = await page.goto("/things/1");
  expect(response?.status()).toBe(504);
  await expect(page.getByRole("heading", { level: 1, name: "Service timed out" })).toBeVisible();
  await expect(page.getByRole("banner")).toBeVisible();
});
