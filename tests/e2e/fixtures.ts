import { test as base, expect, type Page } from "@playwright/test";
import { decode } from "turbo-stream";
import { APP_NAME } from "../../app/lib/constants";
import { HANG_TIMEOUT_MS } from "../support/hang";

/** `consoleErrors`: console errors and uncaught page errors seen so far on `page`. */
export const test = base.extend<{ consoleErrors: string[] }>({
  // E2E_CPU_SLOWDOWN=N runs the page's scripts N times slower, as on a busy machine or slow phone.
  page: async ({ page }, use) => {
    const slowdown = Number(process.env.E2E_CPU_SLOWDOWN ?? 1);
    if (slowdown > 1) {
      const devTools = await page.context().newCDPSession(page);
      await devTools.send("Emulation.setCPUThrottlingRate", { rate: slowdown });
    }
    await use(page);
  },
  // The server's address is known only after global setup has started it.
  baseURL: async ({}, use) => {
    await use(process.env.BASE_URL);
  },
  consoleErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    await use(errors);
  },
});

export { expect };

/** `test` with pages on the worker's own `server`, started by `start`, at `url(server)`. */
export function testOnServer<S extends { stop: () => Promise<unknown> }>(
  start: () => Promise<S>,
  url: (server: S) => string,
) {
  return test.extend<object, { server: S }>({
    server: [
      async ({}, use) => {
        const server = await start();
        await use(server);
        await server.stop();
      },
      { scope: "worker", timeout: HANG_TIMEOUT_MS },
    ],
    baseURL: async ({ server }, use) => {
      await use(url(server));
    },
  });
}

/** Tags a test that means something only with JavaScript: the no-JavaScript project skips it. */
export const JAVASCRIPT_ONLY = { tag: "@javascript-only" };

/** Waits for hydration, maybe long after load: only the browser renders the route announcer. */
export async function waitForHydration(page: Page) {
  await page.locator("body > [aria-live]").waitFor({ state: "attached" });
}

/** Marks the hydrated window: a full page load drops the mark, a client-side update keeps it. */
export async function markWindow(page: Page) {
  await waitForHydration(page);
  await page.evaluate(() => Object.assign(window, { untouchedSinceLoad: true }));
}

/** Navigates as useNavigate() does, with the hydrated app's router. */
export async function navigateInApp(page: Page, to: string) {
  await waitForHydration(page);
  type Router = { navigate: (to: string) => Promise<void> };
  await page.evaluate(
    (target) => (window as unknown as { __remixRouter: Router }).__remixRouter.navigate(target),
    to,
  );
}

export function isSameWindow(page: Page) {
  return page.evaluate(() => "untouchedSinceLoad" in window);
}

/** The page's error summaries and refusals: its alerts, inside the main landmark. */
export function getAlerts(page: Page) {
  return page.getByRole("main").getByRole("alert");
}

type Router = {
  state: {
    navigation: { state: string };
    revalidation: string;
    loaderData: unknown;
    actionData: unknown;
    fetchers: Map<string, { state: string; data: unknown }>;
  };
};

/**
 * Waits for the state a check of the whole page means: with JavaScript, the page hydrated and
 * nothing under way (no navigation, revalidation or fetcher), so the reply shown is the last.
 */
export async function waitForSettledPage(page: Page) {
  if (test.info().project.name !== "javascript-enabled") return;
  if ((await page.locator("script[type=module]").count()) === 0) return;
  await waitForHydration(page);
  await page.waitForFunction(() => {
    const { state } = (window as unknown as { __remixRouter: Router }).__remixRouter;
    const fetchers = [...state.fetchers.values()];
    const busy = [state.navigation.state, state.revalidation, ...fetchers.map((f) => f.state)];
    return busy.every((value) => value === "idle");
  });
}

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
