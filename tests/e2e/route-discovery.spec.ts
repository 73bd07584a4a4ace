import type { Page } from "@playwright/test";
import { expect, isSameWindow, markWindow, navigateInApp, test } from "./things-fixture";

/**
 * Adds links to edit pages, a route the list has not discovered: with JavaScript, Remix asks for
 * the routes of all new links in one `/__manifest` request (under its URL limit), which the edge
 * must answer however long, as it counts the paths by their shape.
 */
async function addEditLinks(page: Page, count: number) {
  await page.evaluate((count) => {
    const list = document.createElement("nav");
    for (let id = 1; id <= count; id++) {
      const link = document.createElement("a");
      link.href = `/things/${id}/edit`;
      link.dataset.discover = "true";
      link.textContent = `Edit thing ${id}`;
      list.append(link);
    }
    document.querySelector("main")!.append(list);
  }, count);
}

function recordDiscovery(page: Page) {
  const answers: { paths: number; status: number }[] = [];
  page.on("response", (response) => {
    const url = new URL(response.url());
    if (url.pathname !== "/__manifest") return;
    answers.push({ paths: url.searchParams.getAll("p").length, status: response.status() });
  });
  return answers;
}

test("a page of 250 links has their routes found in one request, and following one stays in the page", async ({
  page,
  javaScriptEnabled,
}) => {
  const answers = recordDiscovery(page);
  await page.goto("/things");
  if (javaScriptEnabled) await markWindow(page);
  await addEditLinks(page, 250);
  if (javaScriptEnabled) {
    // The page's own links join the same request when its first discovery is late (a busy machine).
    await expect.poll(() => answers.some(({ paths }) => paths >= 250)).toBe(true);
  }
  // Followed as a <Link> would: the added anchors are plain ones, which load a document.
  if (javaScriptEnabled) await navigateInApp(page, "/things/7/edit");
  else await page.getByRole("link", { name: "Edit thing 7", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Edit Granite");
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
  // Nothing asked for was refused; without JavaScript there is no route discovery at all.
  expect(answers.every(({ status }) => status === 200)).toBe(true);
  if (!javaScriptEnabled) expect(answers).toEqual([]);
});
