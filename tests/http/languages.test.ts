import { createHmac } from "node:crypto";
import { createCookie } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { parseHtml } from "../support/html";
import { sendRaw } from "../support/raw-http";
import { TEST_SESSION_SECRET, startSuiteServer } from "../support/server";

const server = startSuiteServer();

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers, redirect: "manual" });

/** Posts the language form as Chromium does without JavaScript. */
function postLanguage(body: string, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/preferences/language`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: server.url,
      "Sec-Fetch-Site": "same-origin",
      ...headers,
    },
    body,
  });
}

/** What a page says of its language: `<html lang dir>`, Content-Language and a heading. */
async function readLanguage(response: Response) {
  const page = parseHtml(await response.text());
  const { lang, dir } = page.documentElement;
  const language = response.headers.get("content-language");
  return { lang, dir, language, heading: page.querySelector("h1")?.textContent };
}

/** A locale cookie signed as the app signs it (its own key from SESSION_SECRET), holding `value`. */
async function signLocale(value: string) {
  const key = createHmac("sha256", TEST_SESSION_SECRET).update("cookie:locale").digest("base64url");
  return (await createCookie("locale", { secrets: [key] }).serialize(value)).split(";")[0]!;
}

describe("the locale of a page", () => {
  it.each([
    ["no Accept-Language", {}, "en", "ltr"],
    ["Accept-Language: ar", { "Accept-Language": "ar" }, "ar", "rtl"],
    ["a region of Arabic", { "Accept-Language": "fr-CA, ar-EG;q=0.8, en;q=0.5" }, "ar", "rtl"],
    ["a language not offered", { "Accept-Language": "fr-CA" }, "en", "ltr"],
    ["a pseudo-locale, not offered here", { "Accept-Language": "ar-XB" }, "ar", "rtl"],
  ])("%s", async (_, headers, lang, dir) => {
    const response = await get("/no/such/page", headers);
    expect(response.status).toBe(404);
    expect(response.headers.get("vary")).toMatch(/Accept-Language, Cookie/);
    const shown = await readLanguage(response);
    expect(shown).toMatchObject({ lang, dir, language: lang });
    expect(shown.heading).toBe(lang === "ar" ? "الصفحة غير موجودة" : "Page not found");
  });

  it("is in single fetch's data headers too", async () => {
    const response = await get("/_root.data", { "Accept-Language": "ar" });
    expect(response.headers.get("content-language")).toBe("ar");
    expect(response.headers.get("vary")).toMatch(/Accept-Language, Cookie/);
  });

  it("is part of the page's tag: another language is another page, the same one a 304", async () => {
    const english = await get("/");
    const tag = english.headers.get("etag")!;
    const arabic = await get("/", { "If-None-Match": tag, "Accept-Language": "ar" });
    expect(arabic.status).toBe(200);
    expect(arabic.headers.get("etag")).not.toBe(tag);
    const again = await get("/", { "If-None-Match": tag, "Accept-Language": "en" });
    expect(again.status).toBe(304);
    expect(again.headers.get("vary")).toMatch(/Accept-Language, Cookie/);
  });
});

describe("POST /preferences/language", () => {
  it("keeps the choice in a cookie, says so in the new language, and comes back to the page", async () => {
    const post = await postLanguage("locale=ar&redirectTo=%2Fno%2Fsuch%3Fx%3D1");
    expect(post.status).toBe(303);
    expect(post.headers.get("location")).toBe("/no/such?x=1");
    const cookies = post.headers.getSetCookie().map((cookie) => cookie.split(";")[0]!);
    expect(post.headers.getSetCookie()[0]).toMatch(
      /^locale=.*; Max-Age=31536000; Path=\/; HttpOnly/,
    );

    const next = await get("/no/such?x=1", { Cookie: cookies.join("; "), "Accept-Language": "en" });
    const page = parseHtml(await next.text());
    expect(page.documentElement.lang).toBe("ar");
    // A value in a right-to-left message is isolated (FSI…PDI, docs/languages.md).
    expect(page.querySelector(".flash")?.textContent).toBe(
      "أصبح الموقع باللغة \u2068العربية\u2069.",
    );
    expect(page.querySelector('button[value="ar"]')?.getAttribute("aria-pressed")).toBe("true");
  });

  it.each([
    ["missing", "locale=ar"],
    ["absolute", "locale=ar&redirectTo=https%3A%2F%2Fevil.example%2F"],
    ["protocol-relative", "locale=ar&redirectTo=%2F%2Fevil.example"],
    ["backslashed", "locale=ar&redirectTo=%2F%5Cevil.example"],
    ["a header injection", "locale=ar&redirectTo=%2F%0D%0ASet-Cookie%3A+a%3D1"],
    ["a javascript: address", "locale=ar&redirectTo=javascript%3Aalert(1)"],
  ])("comes back home when redirectTo is %s", async (_, body) => {
    const response = await postLanguage(body);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
  });

  it.each([
    ["a language not offered", "locale=fr&redirectTo=%2F"],
    ["a pseudo-locale", "locale=en-XA&redirectTo=%2F"],
    ["none", "redirectTo=%2F"],
  ])("refuses %s with the form, in the visitor's language", async (_, body) => {
    const response = await postLanguage(body, { "Accept-Language": "ar" });
    expect(response.status).toBe(400);
    expect(response.headers.getSetCookie()).toEqual([]);
    const page = parseHtml(await response.text());
    expect(page.documentElement.lang).toBe("ar");
    expect(page.querySelector(".error-summary h2")?.textContent).toBe("راجع إجاباتك");
    const labels = [...page.querySelectorAll<HTMLLabelElement>("form.form label")].map(
      (label) => label.lang,
    );
    expect(labels).toEqual(["en", "ar"]);
    expect(page.querySelector("script")).toBeNull();
  });

  it("answers GET with 405 and Allow: POST", async () => {
    const response = await get("/preferences/language");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});

describe("the locale cookie", () => {
  it.each([
    ["unsigned", async () => `locale=${encodeURIComponent(btoa('"ar"'))}`],
    [
      "with another cookie's signature",
      async () => (await signLocale("ar")).replace(/\.[^.]*$/, ".x"),
    ],
    ["signed, naming a language not offered", () => signLocale("fr")],
    ["signed, naming a pseudo-locale", () => signLocale("ar-XB")],
    ["signed, not a string", () => signLocale({ toString: () => "ar" } as unknown as string)],
    ["15 KB long", async () => `locale=${"a".repeat(15_000)}`],
  ])("is no choice when it is %s: Accept-Language decides", async (_, makeCookie) => {
    const response = await get("/", { Cookie: await makeCookie(), "Accept-Language": "en" });
    expect(response.status).toBe(200);
    expect((await readLanguage(response)).lang).toBe("en");
  });

  it("is the choice when it is the app's, whatever Accept-Language says", async () => {
    const response = await get("/", { Cookie: await signLocale("ar"), "Accept-Language": "en" });
    expect(await readLanguage(response)).toMatchObject({ lang: "ar", dir: "rtl", language: "ar" });
  });
});

describe("the server's own refusal pages", () => {
  it("are in the language Accept-Language asks for", async () => {
    const host = `127.0.0.1:${server.port}`;
    const request = (language: string) =>
      sendRaw(
        server.port,
        `TRACE / HTTP/1.1\r\nHost: ${host}\r\n${language}Connection: close\r\n\r\n`,
      );
    const arabic = await request("Accept-Language: ar-SA\r\n");
    expect(arabic.status).toBe(405);
    expect(arabic.headers["content-language"]).toBe("ar");
    expect(arabic.headers.vary).toMatch(/Accept-Language/);
    const page = parseHtml(Buffer.from(arabic.body, "latin1").toString("utf8"));
    expect(page.documentElement).toMatchObject({ lang: "ar", dir: "rtl" });
    expect(page.querySelector("h1")?.textContent).toBe("غير مسموح هنا");
    expect(parseHtml((await request("")).body).querySelector("h1")?.textContent).toBe(
      "Not allowed here",
    );
  });
});
