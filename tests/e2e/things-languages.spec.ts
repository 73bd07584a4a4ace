import type { Page } from "@playwright/test";
import { sendProblem } from "../support/things-api";
import { getTextOutsideCatalogue } from "./pseudo-locale";
import { expect, getAlerts, test } from "./things-fixture";

const COMMENTS = ["Smells of pine.", "Needs oiling.", "Keep dry."];
const PAGES = ["/things", "/things/1", "/things/1/edit", "/things/stock", "/things?q=zz"];

for (const [locale, dir] of [
  ["en-XA", "ltr"],
  ["ar-XB", "rtl"],
] as const) {
  test.describe(`the reference feature in the pseudo-locale ${locale}`, () => {
    test.use({ locale });

    test("shows no word that its catalogue did not give", async ({ page, things }) => {
      const amber = things.things.get("1")!;
      const comments = COMMENTS.map((text, i) => ({ id: String(i + 1), text }));
      things.things.set("1", { ...amber, comments, notes: "Oiled in May." });
      const check = async (what: string) =>
        expect(await getTextOutsideCatalogue(page), what).toEqual([]);

      for (const path of PAGES) {
        await page.goto(path);
        await expect(page.locator("html")).toHaveAttribute("dir", dir);
        await check(path);
      }
      await page.goto("/things/new");
      await page.getByRole("button").last().click();
      await expect(getAlerts(page)).toBeVisible();
      await check("the new thing's form, refused");
    });
  });
}

const plurals: [number, string, string][] = [
  [0, "0 comments", "لا تعليقات"],
  [1, "1 comment", "تعليق واحد"],
  [2, "2 comments", "تعليقان"],
  [3, "3 comments", "3 تعليقات"],
  [11, "11 comments", "11 تعليقًا"],
  [100, "100 comments", "100 تعليق"],
];

for (const [locale, column] of [
  ["en", 1],
  ["ar", 2],
] as const) {
  test.describe(`plurals in ${locale}`, () => {
    test.use({ locale });

    test("a thing's comments are counted in the language's own forms", async ({ page, things }) => {
      const amber = things.things.get("1")!;
      for (const row of plurals) {
        const comments = Array.from({ length: row[0] }, (_, i) => ({ id: `${i}`, text: `c${i}` }));
        things.things.set("1", { ...amber, comments });
        await page.goto("/things/1");
        await expect(page.getByRole("heading", { level: 3 })).toHaveText(row[column]);
      }
    });
  });
}

// U+202E, RIGHT-TO-LEFT OVERRIDE: shown unisolated, it reverses what follows it (UAX #9).
const RLO = "\u202e";

/** What shows one of `values` outside an isolate (FSI…PDI, `<bdi>`): the title, texts, attributes. */
function findUnisolated(page: Page, values: string[]) {
  return page.evaluate((values) => {
    const isolates = (element: Element | null | undefined, text: string) =>
      element?.textContent === text &&
      /isolate|plaintext/.test(getComputedStyle(element).unicodeBidi);
    const isOutside = (text: string, element?: Element | null) =>
      values.some((value) => {
        for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
          const before = text.slice(0, at);
          const depth = before.split(/[\u2066-\u2068]/).length - before.split("\u2069").length;
          if (depth <= 0 && !isolates(element, text)) return true;
        }
        return false;
      });
    const found = isOutside(document.title) ? [`title: ${document.title}`] : [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      // A script is no text, and a form control's value a paragraph of its own.
      if (!parent?.closest("script, style, textarea") && isOutside(node.textContent ?? "", parent))
        found.push(`<${parent?.localName}>: ${node.textContent}`);
    }
    for (const element of document.body.querySelectorAll("*"))
      for (const { name, value } of element.attributes)
        if (name !== "value" && isOutside(value)) found.push(`[${name}]: ${value}`);
    return found;
  }, values);
}

test.describe("text from the API and the address, on a right-to-left page", () => {
  test.use({ locale: "ar" });

  test("is isolated wherever it is shown: U+202E reorders nothing around it", async ({
    page,
    things,
  }) => {
    const [amber, birch] = [things.things.get("1")!, things.things.get("2")!];
    const comments = [{ id: "1", text: `${RLO}pine` }];
    things.things.set("1", { ...amber, name: `${RLO}Amber`, notes: `${RLO}oiled`, comments });
    things.things.set("2", { ...birch, name: `${RLO}Birch` });
    const values = ["Amber", "Birch", "oiled", "pine", "zz", "x"].map((text) => RLO + text);
    const check = async (what: string) =>
      expect(await findUnisolated(page, values), what).toEqual([]);

    for (const path of [
      "/things",
      "/things/1",
      "/things/1/edit",
      "/things/stock",
      `/things?q=${encodeURIComponent(`${RLO}zz`)}`,
      `/things/${encodeURIComponent(`${RLO}x`)}`,
    ]) {
      await page.goto(path);
      await expect(page.locator("html")).toHaveAttribute("dir", "rtl");
      await check(path);
    }
    await page.goto("/things/1");
    await page.locator('button[value="status"]').click();
    await expect(page.locator("section [role=status]")).toContainText(`${RLO}Amber`);
    await check("a page message");
    await page.goto("/things/1/edit");
    await page.locator('form.form button[type="submit"]').click();
    await expect(page.locator(".flash")).toContainText(`${RLO}Amber`);
    await check("a flash");
    // The API's own words, on a field its call gives no message of the page's for.
    const detail = `${RLO}Birch is still in stock.`;
    const errors = [{ pointer: "#/note", detail }];
    things.intercept(/^POST \/stock-checks/, (_, res) => sendProblem(res, 422, { errors }), 1);
    await page.goto("/things/stock");
    await page.locator('button[value="finish"]').click();
    await expect(getAlerts(page)).toContainText(`${RLO}Birch`);
    await check("the API's own words on a form");
  });
});
