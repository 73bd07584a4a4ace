import { expect } from "vitest";
import { parseHtml } from "./html";

/** The cookies one browser keeps for one site, as fetch needs them. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Keeps what a response sets, and forgets what it clears. */
  take(response: Response) {
    for (const header of response.headers.getSetCookie()) {
      const [pair = ""] = header.split(";");
      const separator = pair.indexOf("=");
      const name = pair.slice(0, separator).trim();
      if (/;\s*max-age=0\b/i.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(separator + 1));
    }
    return response;
  }

  get(name: string) {
    return this.cookies.get(name);
  }

  set(name: string, value: string) {
    this.cookies.set(name, value);
  }

  get header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** The Set-Cookie header that ends a session in the browser. */
export const SESSION_CLEARED = "session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax";

/** A browser without JavaScript: a cookie jar per site, redirects followed by hand. */
export class Browser {
  private readonly jars = new Map<string, CookieJar>();

  jar(url: string) {
    const origin = new URL(url).origin;
    let jar = this.jars.get(origin);
    if (!jar) this.jars.set(origin, (jar = new CookieJar()));
    return jar;
  }

  /** Forgets the cookies of `url`'s site, as a visitor clearing them would. */
  forget(url: string) {
    this.jars.delete(new URL(url).origin);
  }

  /** One request, no redirect followed; the site's cookies sent and kept. */
  async fetch(url: string, init: RequestInit = {}) {
    const jar = this.jar(url);
    const headers = new Headers(init.headers);
    if (jar.header) headers.set("cookie", jar.header);
    return jar.take(await fetch(url, { ...init, headers, redirect: "manual" }));
  }

  /** Follows redirects from `url` until an answer that is not one, or until `stopAt` is reached. */
  async follow(url: string, stopAt?: (url: string) => boolean) {
    let current = url;
    for (let hops = 0; hops < 10; hops++) {
      if (stopAt?.(current)) return { url: current, response: null };
      const response = await this.fetch(current);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status > 399 || !location)
        return { url: current, response };
      await response.body?.cancel();
      current = new URL(location, current).href;
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /** Posts an empty form to `url` from a page of its own site (a sign-out, a guarded write). */
  post(url: string) {
    return this.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(url).origin },
      body: "",
    });
  }

  /** Posts a page's form with `fields` (a whole-document submission) and returns the answer. */
  async submit(pageUrl: string, html: string, fields: Record<string, string>, selector = "form") {
    const form = parseHtml(html).querySelector<HTMLFormElement>(selector);
    expect(form, `a form on ${pageUrl}`).not.toBeNull();
    const body = new URLSearchParams();
    for (const input of form!.querySelectorAll<HTMLInputElement>("input[name]"))
      body.set(input.name, input.value);
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    return this.fetch(new URL(form!.getAttribute("action") ?? pageUrl, pageUrl).href, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: new URL(pageUrl).origin,
        "sec-fetch-site": "same-origin",
      },
      body,
    });
  }
}

/**
 * Signs `login` in at the provider's dev login form for a sign-in started at the app (`appUrl`),
 * as a browser without JavaScript would, and returns the callback address it is sent back to.
 */
export async function reachCallback(
  browser: Browser,
  appUrl: string,
  login: string,
  redirectTo = "/",
) {
  const atApp = (url: string) => url.startsWith(`${appUrl}/`);
  const start = await browser.fetch(
    `${appUrl}/auth/sign-in?${new URLSearchParams({ redirectTo })}`,
  );
  expect(start.status).toBe(303);
  const loginPage = await browser.follow(start.headers.get("location")!, atApp);
  expect(loginPage.response?.status, "the provider's login page").toBe(200);
  const posted = await browser.submit(loginPage.url, await loginPage.response!.text(), {
    login,
    password: "any",
  });
  const back = new URL(posted.headers.get("location")!, loginPage.url).href;
  return (await browser.follow(back, atApp)).url;
}

/** The whole round trip: `reachCallback`, then the app's answer to the callback. */
export async function signInThroughProvider(
  browser: Browser,
  appUrl: string,
  login: string,
  redirectTo = "/",
) {
  return browser.fetch(await reachCallback(browser, appUrl, login, redirectTo));
}
