import { test as base, expect, type Page } from "@playwright/test";
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

/** What the checks read of the hydrated app's router (`window.__remixRouter`). */
export type Router = {
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
  if (test.info().project.name !== "javascript-enabled") return false;
  if ((await page.locator("script[type=module]").count()) === 0) return false;
  await waitForHydration(page);
  await page.waitForFunction(() => {
    const { state } = (window as unknown as { __remixRouter: Router }).__remixRouter;
    const fetchers = [...state.fetchers.values()];
    const busy = [state.navigation.state, state.revalidation, ...fetchers.map((f) => f.state)];
    return busy.every((value) => value === "idle");
  });
  return true;
}

/** `waitForSettledPage`, then for the last script a hydrated page loads: web vitals' chunk. */
export async function waitForEveryScript(page: Page) {
  if (!(await waitForSettledPage(page))) return;
  const loaded = () =>
    performance.getEntriesByType("resource").some(({ name }) => name.includes("web-vitals"));
  await expect.poll(() => page.evaluate(loaded)).toBe(true);
}
