import type { Page } from "@playwright/test";
import { scrapeMetrics, total } from "../support/metrics";
import { startSignInApp, type SignInApp } from "../support/oidc-app";
import { getLogLines } from "../support/server";
import { expect, JAVASCRIPT_ONLY, testOnServer, waitForHydration } from "./fixtures";

// What visitors' browsers report from the field, on a server with sign-in and metrics on.
const test = testOnServer(
  () => startSignInApp({ env: { METRICS_PORT: "0" } }),
  (reportsApp) => reportsApp.app.url,
);

const count = async (app: SignInApp, name: string, labels: Record<string, string>) =>
  total(await scrapeMetrics(app.app), name, labels);

/** Hides the page as switching to another tab does; headless Chromium keeps every tab visible. */
function switchTabs(page: Page) {
  return page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    document.dispatchEvent(new Event("visibilitychange", { bubbles: true }));
  });
}

test(
  "switching tabs sends the page's web vitals once each, counted under its route",
  JAVASCRIPT_ONLY,
  async ({ page, server: reportsApp }) => {
    const beacons: URLSearchParams[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/__reports/vitals"))
        beacons.push(new URLSearchParams(request.postData() ?? ""));
    });
    const sent = () => beacons.flatMap((beacon) => [...beacon.keys()].filter((k) => k !== "route"));
    const route = { route: "routes/_site._index" };
    const before = await count(reportsApp, "web_vitals_ttfb_seconds_count", route);
    await page.goto("/");
    await waitForHydration(page);
    // The library comes in a chunk of its own once the page has hydrated, then measures: the page
    // is hidden until what it measured has been sent.
    const painted = () => performance.getEntriesByType("paint").length > 0;
    await expect.poll(() => page.evaluate(painted)).toBe(true);
    const hide = async () => {
      await switchTabs(page);
      return sent();
    };
    await expect.poll(hide).toEqual(expect.arrayContaining(["TTFB", "FCP"]));
    expect(beacons.map((beacon) => beacon.get("route"))).toEqual(beacons.map(() => route.route));
    expect(sent().filter((name) => name === "TTFB" || name === "FCP")).toHaveLength(2);
    await expect
      .poll(() => count(reportsApp, "web_vitals_ttfb_seconds_count", route))
      .toBe(before + 1);
    expect(await count(reportsApp, "web_vitals_fcp_seconds_count", route)).toBe(before + 1);
  },
);

test(
  "an inline script blocked on the sign-in callback page is counted, and logged without its code",
  JAVASCRIPT_ONLY,
  async ({ page, server: reportsApp, baseURL }) => {
    // An inline script injected into the page as it arrives, as a hostile extension or proxy would.
    await page.route("**/auth/callback?*", async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace(
        "</body>",
        "<script>window.injected = true</script></body>",
      );
      await route.fulfill({ response, body });
    });
    // Chromium's headless shell queues the report for `report-to` but never uploads to plain http,
    // so the test sends what it queued as Chromium's uploader would.
    const devTools = await page.context().newCDPSession(page);
    const queued: { initiatorUrl: string; type: string; body: Record<string, unknown> }[] = [];
    devTools.on("Network.reportingApiReportAdded", ({ report }) => queued.push(report));
    await devTools.send("Network.enableReportingApi", { enable: true });
    const labels = { directive: "script-src-elem", blocked: "inline" };
    const before = await count(reportsApp, "csp_violations_total", labels);

    await page.goto("/auth/callback?code=chromium-callback-code&state=s");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Sign-in expired");
    expect(await page.evaluate(() => "injected" in window)).toBe(false);
    const violations = () => queued.filter((report) => report.type === "csp-violation");
    await expect.poll(violations).toHaveLength(1);
    const report = violations()[0]!;
    expect(report.body).toMatchObject({
      effectiveDirective: "script-src-elem",
      blockedURL: "inline",
    });
    const { type, initiatorUrl: url, body } = report;
    const response = await fetch(`${baseURL}/__reports/csp`, {
      method: "POST",
      headers: { "content-type": "application/reports+json", origin: baseURL! },
      body: JSON.stringify([{ type, age: 0, url, user_agent: "Chromium", body }]),
    });
    expect(response.status).toBe(204);
    expect(await count(reportsApp, "csp_violations_total", labels)).toBe(before + 1);
    const logged = () =>
      getLogLines(reportsApp.app, "content security policy violation", "/auth/callback");
    // The line may come a moment after the answer.
    await expect.poll(logged).toHaveLength(1);
    expect(reportsApp.app.output()).not.toContain("chromium-callback-code");
  },
);
