import type { Page } from "@playwright/test";
import { createThingsApi, type Handler, type ThingsApi } from "../support/things-api";
import { test as base } from "./with-upstream";

/**
 * The reference feature (tests/fixtures/reference-app): every test starts with a fresh things API
 * of ten named things and two more ("Amber" … "Juniper", "Thing 11", "Thing 12"; five a page).
 */
export const test = base.extend<{ things: ThingsApi }>({
  build: ["reference-app", { scope: "worker" }],
  things: [
    async ({ upstream }, use) => {
      const things = createThingsApi();
      upstream.handle(things.handle);
      await use(things);
    },
    { auto: true },
  ],
});

// The local `test` takes precedence over the one from ./fixtures.
export * from "./fixtures";

/** The list's links; `toHaveText([...])` on them waits for the list a navigation renders. */
export function listedThings(page: Page) {
  return page.getByRole("list", { name: "Things" }).getByRole("link");
}

/** Holds the API's answer to the next request matching `route` until `release()`. */
export function holdAnswer(things: ThingsApi, route: RegExp, answer: Handler = things.handle) {
  let release: (() => void) | undefined;
  things.intercept(route, (req, res, body) => (release = () => answer(req, res, body)), 1);
  return { arrived: () => release !== undefined, release: () => release!() };
}
