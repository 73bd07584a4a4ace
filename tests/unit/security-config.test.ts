import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "~/lib/config.server";
import { errorCatalogue, type ErrorCode } from "~/lib/errors";
import { getEnglishError } from "../support/shell";
import { renderErrorPage } from "../../server/edge/error-page";
import { parseHtml } from "../support/html";

describe("security settings", () => {
  it("distrust proxies and limit writes to 100 a minute by default", () => {
    expect(parseConfig({})).toMatchObject({ TRUST_PROXY: false, RATE_LIMIT_PER_MINUTE: 100 });
  });

  it("read TRUST_PROXY and RATE_LIMIT_PER_MINUTE, 0 included", () => {
    expect(parseConfig({ TRUST_PROXY: "true", RATE_LIMIT_PER_MINUTE: "0" })).toMatchObject({
      TRUST_PROXY: true,
      RATE_LIMIT_PER_MINUTE: 0,
    });
    expect(parseConfig({ TRUST_PROXY: "false" }).TRUST_PROXY).toBe(false);
  });

  it.each([
    ["TRUST_PROXY", "yes"],
    ["RATE_LIMIT_PER_MINUTE", "-1"],
    ["RATE_LIMIT_PER_MINUTE", "many"],
  ])("reject %s=%s naming the variable", (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(
      new ConfigError(`Invalid environment variable ${name}: `).message,
    );
  });
});

describe("renderErrorPage", () => {
  it.each(Object.keys(errorCatalogue) as ErrorCode[])(
    "renders %s as a complete, script-free document",
    (code) => {
      const { status, title, message } = getEnglishError(code);
      const html = renderErrorPage(code);
      expect(html).toMatch(/^<!DOCTYPE html>/);
      const page = parseHtml(html);
      expect(page.documentElement.lang).toBe("en");
      expect(page.title).toMatch(new RegExp(`^${title} · `));
      const main = page.querySelector("main")!;
      expect(main.querySelector("h1")?.textContent).toBe(title);
      expect(main.textContent).toContain(message);
      expect(main.textContent).toContain(`Error ${status}`);
      expect(main.querySelector("a")?.getAttribute("href")).toBe("/");
      expect(page.querySelectorAll("script, style, [style]")).toHaveLength(0);
    },
  );
});
