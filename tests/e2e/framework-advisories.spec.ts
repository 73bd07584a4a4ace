import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "@playwright/test";
import { buildReferenceApp } from "../support/reference-app";
import { projectRoot, startServer } from "../support/server";
import { expect, JAVASCRIPT_ONLY, navigateInApp, testOnServer, waitForHydration } from "./fixtures";

// The framework's advisories (docs/security.md) tried through faults/reflected-input, which hands
// the visitor's input to the framework where they say an app might. "Elsewhere": the attacker.

type Elsewhere = { host: string; visits: string[] };

const referenceApp = async () => startServer({}, { cwd: await buildReferenceApp() });
const onReferenceApp = testOnServer(referenceApp, (server) => server.url);
const test = onReferenceApp.extend<{ elsewhere: Elsewhere }>({
  elsewhere: async ({}, use) => {
    const visits: string[] = [];
    const server = http.createServer((req, res) => {
      visits.push(req.url ?? "");
      res.end("elsewhere");
    });
    server.on("upgrade", (req, socket) => {
      visits.push(`upgrade ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    await use({ host: `127.0.0.1:${(server.address() as AddressInfo).port}`, visits });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  },
});

/** Replaces WebSocket with a spy that records what it would have opened, and opens nothing. */
async function spyOnWebSocket(page: Page) {
  await page.addInitScript(() => {
    const opened: unknown[] = [];
    Object.assign(window, { openedWebSockets: opened });
    window.WebSocket = new Proxy(window.WebSocket, {
      construct(_target, args) {
        opened.push(args[0]);
        throw new Error("the test's spy opens nothing");
      },
    });
  });
  return () =>
    page.evaluate(() => (window as unknown as { openedWebSockets: unknown[] }).openedWebSockets);
}

/** Whether a browser reads `href` (less tabs, CRs, LFs) as a path here: one slash, no backslash. */
function isSitePath(href: string | null) {
  const path = (href ?? "").replace(/[\t\n\r]/g, "");
  return /^\/[^/\\]/.test(path) && !path.includes("\\");
}

// Each a way to write "//elsewhere/" that a browser reads as another site.
const offSiteTargets = (host: string) => [
  `//${host}/`,
  `/\\${host}/`,
  `\\\\${host}/`,
  `\\/${host}/`,
  `\\${host}/`,
  `/\t/${host}/`,
  `/\t\\${host}/`,
  `/\r\n/${host}/`,
];

test(
  "the browser build rebuilds hydration errors through the patched copy only (GHSA-337j-9hxr-rhxg)",
  JAVASCRIPT_ONLY,
  async () => {
    for (const build of [projectRoot, await buildReferenceApp()]) {
      const folder = path.join(build, "public/build");
      const scripts = readdirSync(folder, { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".js"))
        .map((file) => readFileSync(path.join(folder, file), "utf8"));
      // react-router-dom's own copy comes with createBrowserRouter's hydration, absent here.
      expect(scripts.filter((code) => code.includes("__staticRouterHydrationData"))).toEqual([]);
      const lookups = scripts.flatMap(
        (code) => code.match(/.{120}window\[\w+\.__subType\]/g) ?? [],
      );
      expect(lookups).toHaveLength(1);
      expect(lookups[0]).toContain('"URIError"].includes(');
    }
  },
);

test("a link to a path that a browser reads as another site stays on this one (GHSA-wrjc-x8rr-h8h6)", async ({
  page,
  baseURL,
  elsewhere,
}) => {
  // An absolute URL, "//elsewhere/" too, is an external link by design; these are paths.
  for (const to of offSiteTargets(elsewhere.host).filter((target) => !target.startsWith("//"))) {
    await page.goto(`/faults/reflected-input?${new URLSearchParams({ to })}`);
    const link = page.getByRole("link", { name: "Reflected link" });
    expect(isSitePath(await link.getAttribute("href")), to).toBe(true);
    await link.click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Page not found");
    expect(new URL(page.url()).origin, to).toBe(baseURL);
  }
  expect(elsewhere.visits).toEqual([]);
});

// The attacks go through client-side navigation.
test.describe("with the browser's router", JAVASCRIPT_ONLY, () => {
  test("navigate() to a target that a browser reads as another site stays on this one (GHSA-9jcx-v3wj-wh4m, GHSA-wrjc-x8rr-h8h6)", async ({
    page,
    baseURL,
    elsewhere,
  }) => {
    for (const to of [...offSiteTargets(elsewhere.host), `../\\${elsewhere.host}/`]) {
      await page.goto("/faults/reflected-input");
      await navigateInApp(page, to);
      await expect(page.getByRole("heading", { level: 1 }), to).toHaveText("Page not found");
      expect(new URL(page.url()).origin, to).toBe(baseURL);
      expect(isSitePath(new URL(page.url()).pathname), to).toBe(true);
    }
    expect(elsewhere.visits).toEqual([]);
  });

  test("navigate() to a path with a colon stays a path on this site (GHSA-jjmj-jmhj-qwj2)", async ({
    page,
    baseURL,
    consoleErrors,
  }) => {
    page.on(
      "dialog",
      (dialog) => void dialog.dismiss().then(() => consoleErrors.push("a dialog opened")),
    );
    await page.goto("/faults/reflected-input");
    await navigateInApp(page, "javascript:alert(document.domain)");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Page not found");
    expect(new URL(page.url()).origin).toBe(baseURL);
    expect(new URL(page.url()).pathname).toMatch(/\/javascript:alert\(document\.domain\)$/);
    expect(consoleErrors.filter((error) => !error.includes("404"))).toEqual([]);
  });

  test("an error thrown as the visitor shaped it constructs nothing they named when hydrated (GHSA-337j-9hxr-rhxg)", async ({
    page,
    elsewhere,
  }) => {
    const openedWebSockets = await spyOnWebSocket(page);
    const query = { thrown: "1", name: "WebSocket", message: `ws://${elsewhere.host}/` };
    await page.goto(`/faults/reflected-input?${new URLSearchParams(query)}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Something went wrong");
    // The hydrated router holds the error, rebuilt as a plain Error.
    await waitForHydration(page);
    expect(await openedWebSockets()).toEqual([]);
    expect(elsewhere.visits).toEqual([]);
  });

  test("an error named by the visitor reaches the browser as a plain Error (GHSA-rxv8-25v2-qmq8)", async ({
    page,
    baseURL,
    elsewhere,
  }) => {
    const openedWebSockets = await spyOnWebSocket(page);
    const query = new URLSearchParams({ name: "WebSocket", message: `ws://${elsewhere.host}/` });
    // Remix's encoder replaces every Error with a sanitized one before turbo-stream's own error
    // encoding, which would name the constructor, is reached.
    const data = await page.request.get(`${baseURL}/faults/reflected-input.data?${query}`);
    expect(data.status()).toBe(200);
    const body = await data.text();
    expect(body).toContain("SanitizedError");
    expect(body).toContain("Unexpected Server Error");
    expect(body).not.toContain("WebSocket");
    expect(body).not.toContain(elsewhere.host);
    await page.goto(`/faults/reflected-input?${query}`);
    await page.goto("/nowhere");
    await navigateInApp(page, `/faults/reflected-input?${query}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Reflected input");
    expect(await openedWebSockets()).toEqual([]);
    expect(elsewhere.visits).toEqual([]);
  });
});
