import { sendJson } from "../support/upstream";
import { expect, test } from "./with-upstream";

// The shipped app on a server of its own, wired to a scripted API: how a spec for a new page that
// makes calls starts (the reference feature's specs do the same with the fixture app).
test("the app's server asks the worker's scripted API", async ({ page, upstream }) => {
  upstream.handle((_req, res) => sendJson(res, 200, {}));
  const response = await page.goto("/readyz");
  expect(await response?.json()).toEqual({ status: "ok", upstream: "ok" });
  expect(upstream.received.map(({ method, url }) => `${method} ${url}`)).toEqual(["GET /"]);

  upstream.handle((_req, res) => sendJson(res, 503, {}));
  expect((await page.goto("/readyz"))?.status()).toBe(503);
});
