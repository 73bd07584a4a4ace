import { describe, expect, it } from "vitest";
import { parseHtml } from "../support/html";
import { sendRaw } from "../support/raw-http";
import { startReferenceAppServer } from "../support/reference-app";
import { startSuiteServer, type RunningServer } from "../support/server";
import { titleOf } from "./hostile-requests";

const THEME = "/preferences/theme";

/** Posts a URL-encoded body to the theme form, as a browser without JavaScript does. */
async function postTheme(server: RunningServer, body: string) {
  const response = await fetch(`${server.url}${THEME}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: server.url,
      "Sec-Fetch-Site": "same-origin",
    },
    body,
  });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

const fields = (count: number) => Array.from({ length: count - 1 }, (_, i) => `&n${i}=1`).join("");

const intent = (value: object) => `__intent__=${encodeURIComponent(JSON.stringify(value))}`;
const update = (payload: object) => intent({ type: "update", payload });

function expectCataloguePage(html: string, code: "BAD_REQUEST" | "PAYLOAD_TOO_LARGE") {
  expect(html).toContain(`<h1 id="error-title">${titleOf(code)}</h1>`);
}

describe("reading a form post", () => {
  const server = startSuiteServer();

  it("refuses more than FORM_MAX_FIELDS (1,000) fields with 413 and the catalogue page", async () => {
    const response = await postTheme(server, `theme=dark${fields(1_001)}`);
    expect(response.status).toBe(413);
    expectCataloguePage(response.html, "PAYLOAD_TOO_LARGE");
  });

  it("reads 1,000 fields, dropping the names the form has no place for", async () => {
    expect((await postTheme(server, `theme=dark${fields(1_000)}`)).status).toBe(303);
  });

  it.each([
    ["the theme twice", "theme=light&theme=dark&redirectTo=%2F"],
    ["redirectTo twice", "theme=light&redirectTo=%2Fa&redirectTo=%2F%2Fevil.example"],
    ["an unknown name twice", "theme=light&a=1&a=2"],
    ["an unknown name 999 times", `theme=dark${"&a=1".repeat(999)}`],
    ["a control field twice", "theme=dark&__state__={}&__state__={}"],
  ])("refuses %s with 400 and the catalogue page", async (_name, body) => {
    const response = await postTheme(server, body);
    expect(response.status).toBe(400);
    expectCataloguePage(response.html, "BAD_REQUEST");
  });

  it.each([
    ["__intent__ that is not JSON", "__intent__=notjson"],
    ["__intent__ that is an empty object", "__intent__={}"],
    ["__intent__ that is null", "__intent__=null"],
    ["__intent__ that is a list", "__intent__=[]"],
    ["__intent__ of an unknown type", intent({ type: 2, payload: {} })],
    ["__state__ that is not JSON", "__state__={"],
    [
      "an insert on a field that is not a list",
      intent({ type: "insert", payload: { name: "theme" } }),
    ],
    [
      "a remove on a field that is not a list",
      intent({ type: "remove", payload: { name: "theme", index: 0 } }),
    ],
    [
      "a reorder on a field that is not a list",
      intent({ type: "reorder", payload: { name: "theme", from: 0, to: 1 } }),
    ],
    ["an update naming __proto__.x", update({ name: "__proto__.x", value: "1" })],
    [
      "an update naming constructor.prototype",
      update({ name: "constructor.prototype", value: "1" }),
    ],
    ["an update with bad path syntax", update({ name: "a..b]", value: "1" })],
    ["a reset of __proto__", intent({ type: "reset", payload: { name: "__proto__" } })],
    ["an update at a huge index", update({ name: "theme", index: 1e9, value: "1" })],
    ["a control field over 16 KB", `__state__=${"1".repeat(17_000)}`],
  ])("answers a submission with %s with 400 and the catalogue page", async (_name, control) => {
    const response = await postTheme(server, `theme=dark&${control}`);
    expect(response.status).toBe(400);
    expectCataloguePage(response.html, "BAD_REQUEST");
  });

  it("refuses a well-formed Conform intent too: no form here posts one", async () => {
    const validate = intent({ type: "validate", payload: { name: "theme" } });
    const response = await postTheme(server, `theme=dark&${validate}`);
    expect(response.status).toBe(400);
    expectCataloguePage(response.html, "BAD_REQUEST");
  });
});

describe("redirectTo", () => {
  const server = startSuiteServer();

  /** The Location of a theme post with this redirectTo, as the bytes on the wire. */
  async function getLocation(redirectTo: string) {
    const body = `theme=dark&redirectTo=${encodeURIComponent(redirectTo)}`;
    const response = await sendRaw(
      server.port,
      [
        `POST ${THEME} HTTP/1.1`,
        `Host: 127.0.0.1:${server.port}`,
        "Content-Type: application/x-www-form-urlencoded",
        `Content-Length: ${body.length}`,
        "Connection: close",
        "",
        body,
      ].join("\r\n"),
    );
    expect(response.status).toBe(303);
    return response.headers.location!;
  }

  it.each([
    ["an ideographic full stop", "/\u3002/evil.example", "/%E3%80%82/evil.example"],
    ["full-width slashes", "/\uff0f\uff0fevil.example", "/%EF%BC%8F%EF%BC%8Fevil.example"],
    ["an emoji", "/\u{1f600}?q=\u{1f600}#\u{1f600}", "/%F0%9F%98%80?q=%F0%9F%98%80#%F0%9F%98%80"],
    ["Latin-1 characters", "/caf\u00e9?q=\u00fc", "/caf%C3%A9?q=%C3%BC"],
    ["dot segments", "/a/b/../c/./d", "/a/c/d"],
    ["dot segments that would make //host", "/..//evil.example", "/evil.example"],
    ["repeated slashes", "/a//b///c", "/a/b/c"],
    ["2,048 characters", `/${"a".repeat(2_047)}`, `/${"a".repeat(2_047)}`],
    ["2,049 characters", `/${"a".repeat(2_048)}`, "/"],
    ["300 KB", `/${"a".repeat(300_000)}`, "/"],
    ["2 KB that grows past 2 KB when encoded", `/${"\u00e9".repeat(400)}`, "/"],
  ])("sends %s as a short ASCII same-site path", async (_name, redirectTo, location) => {
    const sent = await getLocation(redirectTo);
    expect(sent).toBe(location);
    expect(sent).toMatch(/^\/[\x21-\x7e]*$/);
  });

  it("keeps everything the process writes a JSON log line, with long values cut", async () => {
    const before = server.output().length;
    await getLocation(`/a//${"b".repeat(100_000)}`);
    await getLocation(`//${"b".repeat(100_000)}`);
    expect(server.output().length - before).toBeLessThan(10_000);
    expect(server.stderr()).toBe("");
    for (const line of server.output().trim().split("\n"))
      expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe("signed cookies", () => {
  const server = startSuiteServer();

  async function getSignedValues() {
    const response = await postTheme(server, "theme=dark&redirectTo=%2F");
    const pairs = response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]!);
    const valueOf = (name: string) =>
      pairs.find((pair) => pair.startsWith(`${name}=`))!.slice(name.length + 1);
    return { theme: valueOf("theme"), flash: valueOf("flash") };
  }

  const getHtml = async (cookie: string) =>
    (await fetch(server.url, { headers: { Cookie: cookie } })).text();

  it("are accepted under their own names", async () => {
    const { theme, flash } = await getSignedValues();
    const html = await getHtml(`theme=${theme}; flash=${flash}`);
    expect(html).toContain('data-theme="dark"');
    expect(html).toContain("<p>Theme set to Dark.</p>");
  });

  it("are not accepted under another cookie's name", async () => {
    const { theme, flash } = await getSignedValues();
    const html = await getHtml(`flash=${theme}; theme=${flash}`);
    expect(html).toContain('<div class="flash" role="status"></div>');
    expect(html).not.toContain("<p>dark</p>");
    expect(html).toContain('data-theme="system"');
  });
});

describe("with FORM_MAX_FIELDS=5", () => {
  const server = startSuiteServer({ FORM_MAX_FIELDS: "5" });

  it("reads 5 fields and refuses 6 with 413", async () => {
    expect((await postTheme(server, `theme=dark${fields(5)}`)).status).toBe(303);
    expect((await postTheme(server, `theme=dark${fields(6)}`)).status).toBe(413);
    // Empty parts between separators are not fields.
    expect((await postTheme(server, `theme=dark&&&&&&&&&&redirectTo=%2F`)).status).toBe(303);
  });
});

describe("whole numbers: only decimal digits, the same in the browser and the action", () => {
  const { server, getUpstream } = startReferenceAppServer();

  /** Adds a thing with this quantity, as a browser without JavaScript posts it. */
  async function postQuantity(quantity: string) {
    const upstream = getUpstream();
    const before = upstream.received.length;
    const response = await fetch(`${server.url}/things/new`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: `Thing ${before}`, quantity, colour: "red" }),
    });
    const sent = upstream.received
      .slice(before)
      .map((request) => JSON.parse(request.body) as { quantity: number });
    return { status: response.status, html: await response.text(), sent };
  }

  it.each([
    [" 12 ", 12],
    ["-0", 0],
    ["0012", 12],
  ])("reads %j as %j", async (quantity, number) => {
    const { status, sent } = await postQuantity(quantity);
    expect(status).toBe(303);
    expect(sent.map((body) => body.quantity)).toEqual([number]);
  });

  it.each(["0x10", "0b11", "0o7", "1e3", "+5", "١٢", "Infinity", "9".repeat(400)])(
    "refuses %j with 400 and the form's message, calling nothing",
    async (quantity) => {
      const { status, html, sent } = await postQuantity(quantity);
      expect(status).toBe(400);
      const page = parseHtml(html);
      expect(page.getElementById("thing-form-quantity-error")?.textContent).toBe(
        "Enter the quantity as a whole number, like 12.",
      );
      expect(page.querySelector<HTMLInputElement>("#thing-form-quantity")?.value).toBe(quantity);
      expect(sent).toEqual([]);
    },
  );
});
