import { createCookie } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { sendRaw } from "../support/raw-http";
import { TEST_SESSION_SECRET, startSuiteServer } from "../support/server";
import { parseHtml } from "../support/html";

const server = startSuiteServer();

/** The redirectTo the re-rendered theme form posts back (the page form's, not the header's). */
function getHiddenRedirect(page: Document) {
  return page.querySelector<HTMLInputElement>('form.form input[name="redirectTo"]')?.value;
}

/** Posts the theme form exactly as Chromium does without JavaScript: same-origin headers. */
function postTheme(body: string) {
  return fetch(`${server.url}/preferences/theme`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: server.url,
      "Sec-Fetch-Site": "same-origin",
      "Sec-Fetch-Mode": "navigate",
    },
    body,
  });
}

function getCookiePairs(response: Response) {
  return response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]!);
}

function getSetCookie(response: Response, name: string) {
  return response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
}

function getPage(path: string, cookie: string) {
  return fetch(`${server.url}${path}`, { headers: { Cookie: cookie } });
}

describe("POST /preferences/theme", () => {
  it("stores the theme, sets a flash message and answers 303 to redirectTo", async () => {
    const response = await postTheme("theme=dark&redirectTo=%2Fsome%2Fpage%3Fa%3D1");
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/some/page?a=1");
    const theme = getSetCookie(response, "theme");
    expect(theme).toMatch(/; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(theme).not.toMatch(/Secure/);
    expect(getSetCookie(response, "flash")).toMatch(/; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(await response.text()).toBe("");
  });

  it.each([
    ["missing", "theme=light"],
    ["empty", "theme=light&redirectTo="],
    ["absolute", "theme=light&redirectTo=https%3A%2F%2Fevil.example%2F"],
    ["protocol-relative", "theme=light&redirectTo=%2F%2Fevil.example"],
    ["backslashed", "theme=light&redirectTo=%2F%5Cevil.example"],
  ])("redirects home when redirectTo is %s", async (_name, body) => {
    const response = await postTheme(body);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
  });

  it("shows the new theme and the flash message once on the next pages", async () => {
    const post = await postTheme("theme=light&redirectTo=%2F");
    const cookies = getCookiePairs(post);

    const first = await getPage("/", cookies.join("; "));
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    const firstPage = parseHtml(await first.text());
    expect(firstPage.documentElement.dataset.theme).toBe("light");
    expect(firstPage.querySelector(".flash[role=status]")?.textContent).toBe("Theme set to Light.");
    expect(firstPage.querySelector('button[value="light"]')?.getAttribute("aria-pressed")).toBe(
      "true",
    );
    const cleared = getSetCookie(first, "flash");
    expect(cleared).toMatch(/^flash=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/);

    const themeOnly = cookies.filter((cookie) => cookie.startsWith("theme="));
    const second = await getPage("/", themeOnly.join("; "));
    const secondPage = parseHtml(await second.text());
    expect(secondPage.documentElement.dataset.theme).toBe("light");
    expect(secondPage.querySelector(".flash[role=status]")?.textContent).toBe("");
    expect(getSetCookie(second, "flash")).toBeUndefined();
  });

  it.each([
    ["an unknown theme", "theme=purple&redirectTo=%2F"],
    ["a missing theme", "redirectTo=%2F"],
    ["an empty theme", "theme=&redirectTo=%2F"],
  ])("answers %s with a 400 page showing the form and the error", async (_name, body) => {
    const response = await postTheme(body);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
    expect(response.headers.getSetCookie()).toEqual([]);
    const page = parseHtml(await response.text());
    expect(page.querySelector("header.site-header")).not.toBeNull();
    const summary = page.querySelector(".error-summary[role=alert]");
    expect(summary?.querySelector("h2")?.textContent).toBe("Check your answers");
    expect(summary?.hasAttribute("autofocus")).toBe(true);
    const summaryLink = summary?.querySelector("a");
    expect(summaryLink?.getAttribute("href")).toBe("#theme-form-theme");
    expect(summaryLink?.textContent).toBe("Choose System, Light or Dark.");
    expect(page.getElementById("theme-form-theme-error")?.textContent).toBe(
      "Choose System, Light or Dark.",
    );
    // The summary's link leads to the first option.
    const firstOption = page.getElementById("theme-form-theme") as HTMLInputElement;
    expect(firstOption.name).toBe("theme");
    expect(firstOption.value).toBe("system");
    expect(firstOption.getAttribute("aria-invalid")).toBe("true");
    expect(firstOption.getAttribute("aria-describedby")).toBe(
      "theme-form-theme-description theme-form-theme-error",
    );
    expect(getHiddenRedirect(page)).toBe("/");
  });

  it("keeps the visitor's redirectTo in the re-rendered form", async () => {
    const response = await postTheme("theme=purple&redirectTo=%2Fback%3Fq%3D1");
    expect(response.status).toBe(400);
    expect(getHiddenRedirect(parseHtml(await response.text()))).toBe("/back?q=1");
  });

  it("answers GET with 405 and Allow: POST, as a page inside the layout", async () => {
    const response = await fetch(`${server.url}/preferences/theme`);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    const page = parseHtml(await response.text());
    expect(page.querySelector("h1")?.textContent).toBe("Not allowed here");
    const control = page.querySelector("form.theme-control");
    expect(control?.getAttribute("method")).toBe("post");
    expect(control?.getAttribute("action")).toBe("/preferences/theme");
  });
});

describe("the theme cookie", () => {
  async function getThemeAttribute(cookie: string) {
    const html = await (await getPage("/", cookie)).text();
    return parseHtml(html).documentElement.dataset.theme;
  }

  it("is ignored when it is not signed", async () => {
    expect(await getThemeAttribute(`theme=${encodeURIComponent(btoa('"dark"'))}`)).toBe("system");
  });

  it("is ignored when its signature does not match", async () => {
    const post = await postTheme("theme=dark&redirectTo=%2F");
    const signed = getCookiePairs(post).find((cookie) => cookie.startsWith("theme="))!;
    expect(await getThemeAttribute(signed)).toBe("dark");
    const [value, signature] = signed.slice("theme=".length).split(".");
    const tampered = `theme=${encodeURIComponent(btoa('"light"'))}.${signature}`;
    expect(value).not.toBe(tampered);
    expect(await getThemeAttribute(tampered)).toBe("system");
  });

  it("is ignored when it is signed but holds an unknown theme", async () => {
    const cookie = createCookie("theme", { secrets: [TEST_SESSION_SECRET] });
    const header = (await cookie.serialize("purple")).split(";")[0]!;
    expect(await getThemeAttribute(header)).toBe("system");
  });
});

describe("caching", () => {
  it.each([
    ["marks single-fetch data private too", "/_root.data", 200],
    ["marks the 404 page private", "/no/such/page", 404],
  ])("%s", async (_name, path, status) => {
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(status);
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
  });
});

describe("with an https ORIGIN", () => {
  const secure = startSuiteServer({ ORIGIN: "https://app.example" });

  it("marks both cookies Secure, with the __Host- prefix", async () => {
    // As it arrives through the https proxy in front: Host and Origin are the public ones.
    const body = "theme=dark&redirectTo=%2F";
    const { status, raw } = await sendRaw(
      secure.port,
      [
        "POST /preferences/theme HTTP/1.1",
        "Host: app.example",
        "Origin: https://app.example",
        "Sec-Fetch-Site: same-origin",
        "Content-Type: application/x-www-form-urlencoded",
        `Content-Length: ${body.length}`,
        "Connection: close",
        "",
        body,
      ].join("\r\n"),
    );
    expect(status).toBe(303);
    expect(raw).toMatch(/\r\nset-cookie: __Host-theme=[^\r]*; Path=\/;[^\r]*; Secure[;\r]/i);
    expect(raw).toMatch(/\r\nset-cookie: __Host-flash=[^\r]*; Path=\/;[^\r]*; Secure[;\r]/i);
  });
});
