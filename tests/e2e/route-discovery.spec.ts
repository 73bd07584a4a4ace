import type { Page } from "@playwright/test";
import { expect, isSameWindow, markWindow, navigateInApp, test } from "./things-fixture";

/**
 * A page that grows a long list of links: with JavaScript, Remix asks the server for the routes
 * of every link it has not seen yet, in one request (route discovery, `/__manifest`), as long as
 * that stays under its URL limit. The edge counts the paths by their shape, so the request of a
 * page this long is answered. The links lead to edit pages, a route the list page has not
 * discovered.
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

/**
 * Follows a link as a <Link> would: the added anchors are plain ones, which load a document when
 * clicked, so with JavaScript the router is asked directly.
 */
async function followEditLink(page: Page, javaScriptEnabled: boolean) {
  if (!javaScriptEnabled)
    return page.getByRole("link", { name: "Edit thing 7", exact: true }).click();
  await navigateInApp(page, "/things/7/edit");
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
  await followEditLink(page, javaScriptEnabled);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Edit Granite");
  expect(await isSameWindow(page)).toBe(javaScriptEnabled);
  // Nothing the browser asked for was refused; without JavaScript there is no route discovery at all.
  expect(answers.every(({ status }) => status === 200)).toBe(true);
  if (!javaScriptEnabled) expect(answers).toEqual([]);
});
