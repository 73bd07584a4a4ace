import type { Page } from "@playwright/test";
import { decode } from "turbo-stream";
import { APP_NAME } from "../../app/lib/constants";
import { type Router, waitForSettledPage } from "./fixtures";

// The pseudo-locales' check (docs/languages.md): what a page shows that no message gave.

/**
 * Every string of the page's route data, as Remix put it in the page (the hydrated router's,
 * else the data streamed into the document): the API's names and texts, the visitor's name.
 * A code the page's messages name (`archived` of `things.status.archived`) is not among them.
 */
async function getPageData(page: Page) {
  const hydrated = await page.evaluate(() => {
    const router = (window as unknown as { __remixRouter?: Router }).__remixRouter;
    if (!router) return undefined;
    const { loaderData, actionData, fetchers } = router.state;
    const data = [loaderData, actionData, [...fetchers.values()].map((fetcher) => fetcher.data)];
    // Deferred data: React Router keeps what a promise resolved to on the promise.
    return JSON.stringify(data, (_, value: unknown) =>
      value instanceof Promise ? (value as { _data?: unknown })._data : value,
    );
  });
  const found = new Set<string>();
  const codes = new Set<string>();
  const collect = async (value: unknown): Promise<void> => {
    value = await value;
    if (typeof value === "string") found.add(value);
    else if (value && typeof value === "object")
      for (const [key, item] of Object.entries(value))
        if (key !== "messages") await collect(item);
        else for (const name of Object.keys(item as object)) codes.add(name.split(".").at(-1)!);
  };
  if (hydrated) await collect(JSON.parse(hydrated));
  else {
    const chunks = await page.locator("script").evaluateAll((scripts) =>
      scripts.flatMap((script) => {
        const chunk = /^window\.__remixContext\.streamController\.enqueue\((".*")\);$/s;
        return chunk.exec(script.textContent ?? "")?.[1] ?? [];
      }),
    );
    if (chunks.length) {
      const text = new Blob(chunks.map((chunk) => JSON.parse(chunk) as string));
      const plugins = [(_: string, ...values: unknown[]) => ({ value: values })];
      const { value, done } = await decode(text.stream(), { plugins });
      await done;
      const { loaderData, actionData } = value as Record<string, unknown>;
      await collect([loaderData, actionData]);
    }
  }
  return [...found].filter((text) => !codes.has(text));
}

/**
 * With a pseudo-locale on (messages inside ⟦⟧, full-width digits): the page's text, labels and
 * title that no message gave, less the page's own data (`getPageData`), the product's name and
 * what is marked not translated (`translate="no"`, another `lang`) or a formatted date (`time`).
 * Empty when every word came from the catalogue. Read once the page has settled.
 */
export async function getTextOutsideCatalogue(page: Page) {
  await waitForSettledPage(page);
  const data = await getPageData(page);
  const shown = await page.evaluate(() => {
    const lang = document.documentElement.lang;
    const untranslated = `script, style, time, [translate="no"], [lang]:not([lang="${lang}"])`;
    const texts = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      if (!node.parentElement?.closest(untranslated)) texts.push(node.textContent ?? "");
    for (const element of document.body.querySelectorAll("[aria-label], [placeholder], [title]"))
      if (!element.closest(untranslated))
        for (const name of ["aria-label", "placeholder", "title"])
          texts.push(element.getAttribute(name) ?? "");
    return texts;
  });
  return shown
    .map((text) => {
      let rest = text;
      for (let inner = ""; inner !== rest;) [inner, rest] = [rest, rest.replace(/⟦[^⟦⟧]*⟧/g, "")];
      for (const value of [...data, APP_NAME]) rest = rest.replaceAll(value, "");
      rest = rest.replace(/[\uff10-\uff19]+(?:[,.][\uff10-\uff19]+)*/g, "");
      return rest.trim();
    })
    .filter(Boolean);
}
