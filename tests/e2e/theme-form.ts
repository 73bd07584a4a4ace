import type { Page } from "@playwright/test";

/** Posts the header's theme form natively with a value no button offers: the 400 page, always. */
export async function postTamperedTheme(page: Page, value = "purple") {
  await page.evaluate((theme) => {
    const form = document.querySelector<HTMLFormElement>("form.theme-control")!;
    const input = document.createElement("input");
    Object.assign(input, { type: "hidden", name: "theme", value: theme });
    form.append(input);
    form.submit();
  }, value);
}
