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
