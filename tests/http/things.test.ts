import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { errorCatalogue, type ErrorCode } from "~/lib/errors";
import { getEnglishError } from "../support/shell";
import { parseHtml } from "../support/html";
import { scrapeMetrics, total } from "../support/metrics";
import { startSuiteServer } from "../support/server";
import { createThingsApi, sendProblem, type ThingsApi } from "../support/things-api";
import { sendJson, startUpstream, type Upstream } from "../support/upstream";
import { buildReferenceApp, referenceAppBuild } from "../support/reference-app";
import { thingMessages } from "../fixtures/reference-app/app/i18n/things.server";
import { shellMessages } from "~/i18n/messages.server";

// The reference feature (tests/fixtures/reference-app: /things and its forms) against the scripted
// things API, as a browser without JavaScript sees it, and through single fetch as one with it.

let upstream: Upstream;
let api: ThingsApi;

beforeAll(async () => {
  await buildReferenceApp();
  upstream = await startUpstream();
});
afterAll(() => upstream?.close());
beforeEach(() => {
  api = createThingsApi();
  upstream.handle(api.handle);
});

const server = startSuiteServer(
  () => ({
    API_BASE_URL: upstream.url,
    API_TIMEOUT_MS: "1000",
    TIME_ZONE: "Europe/Berlin",
    METRICS_PORT: "0",
  }),
  { cwd: referenceAppBuild, expectedStatuses: [502, 503, 504] },
);

async function get(path: string) {
  const response = await fetch(`${server.url}${path}`, { redirect: "manual" });
  return { response, document: parseHtml(await response.text()) };
}

async function post(path: string, fields: Record<string, string> | string, language = "en") {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "accept-language": language },
    body: typeof fields === "string" ? fields : new URLSearchParams(fields),
    redirect: "manual",
  });
  const body = await response.text();
  return { response, body, document: parseHtml(body) };
}

const text = (document: Document, selector: string) =>
  [...document.querySelectorAll(selector)].map((element) => element.textContent?.trim());

const upstreamCalls = () => upstream.received.map(({ method, url }) => `${method} ${url}`);
const sentBody = () => JSON.parse(upstream.received[0]!.body) as unknown;

// The error summaries a visitor sees: the page message's copy of a refusal is hidden (forms.css)
// while the form it is for is on the page.
const summaries = (document: Document) =>
  [...document.querySelectorAll(".error-summary")]
    .filter((box) => !box.matches(".page-refusal") || !document.querySelector("form[data-refused]"))
    .map((box) => box.getAttribute("aria-labelledby"));
const shownText = (document: Document, selector: string) =>
  summaries(document).flatMap((id) => text(document, `[aria-labelledby="${id}"] ${selector}`));

const inputValue = (document: Document, selector: string) =>
  document.querySelector<HTMLInputElement>(selector)?.value;
const textOf = (document: Document, selector: string) =>
  document.querySelector(selector)?.textContent;

function expectFlashRedirect(response: Response, location: string) {
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe(location);
  expect(response.headers.get("set-cookie")).toMatch(/^flash=/);
}

function expectCataloguePage(document: Document, code: ErrorCode) {
  expect(document.querySelector("#error-title")?.textContent).toBe(getEnglishError(code).title);
  expect(document.querySelector("header.site-header")).not.toBeNull();
}

type Answer = (res: Parameters<typeof sendJson>[0]) => void;
const BAD_ANSWER: ErrorCode = "UPSTREAM_BAD_RESPONSE";

const validThing = { name: "  Zinc ", quantity: " 12", colour: "green", featured: "on", notes: "" };

describe("the list", () => {
  it("shows a page of things from the API, with the search and page from the address", async () => {
    const { response, document } = await get("/things?q=%20e%20&page=2");
    expect(response.status).toBe(200);
    expect(text(document, 'ul[aria-label="Things"] a')).toEqual(["Granite", "Juniper"]);
    expect(text(document, 'nav[aria-label="Pages"] > *')).toEqual(["Previous page", "Page 2 of 2"]);
    expect(inputValue(document, 'input[name="q"]')).toBe("e");
    expect(upstreamCalls()).toEqual(["GET /things?q=e&page=2"]);
  });

  it.each(["page=abc", "page=0", "page=1.5", "page=0x2", "page=1&page=2"])(
    "shows the first page for ?%s: a bad page number falls back",
    async (query) => {
      const { response, document } = await get(`/things?${query}`);
      expect(response.status).toBe(200);
      expect(text(document, 'nav[aria-label="Pages"] > *')).toEqual(["Page 1 of 3", "Next page"]);
      expect(upstreamCalls()).toEqual(["GET /things?page=1"]);
    },
  );

  it("filters by status from the address, the filter kept in the search and pages", async () => {
    const { response, document } = await get("/things?status=archived");
    expect(response.status).toBe(200);
    expect(text(document, 'ul[aria-label="Things"] li')).toEqual(["Birch (Archived)"]);
    expect(textOf(document, 'nav[aria-label="Status"] [aria-current="true"]')).toBe("Archived");
    expect(inputValue(document, 'form[role="search"] input[name="status"]')).toBe("archived");
    expect(upstreamCalls()).toEqual(["GET /things?status=archived&page=1"]);
  });

  it.each([
    `q=${"x".repeat(101)}`,
    "status=deleted",
    "status=Archived",
    "status=active&status=archived",
  ])("refuses ?%s with 400, calling nothing", async (query) => {
    const { response, document } = await get(`/things?${query}`);
    expect(response.status).toBe(400);
    expectCataloguePage(document, "BAD_REQUEST");
    expect(upstreamCalls()).toEqual([]);
  });
});

describe("a thing's page, nested in the list", () => {
  it("makes the list's call and its own at the same time", async () => {
    const waiting: (() => void)[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    upstream.handle((req, res, body) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      waiting.push(() => (inFlight--, api.handle(req, res, body)));
      // Neither is answered until both have arrived: one after the other, the page would time out.
      if (waiting.length === 2) waiting.splice(0).forEach((answer) => answer());
    });
    const { response, document } = await get("/things/3");
    expect(response.status).toBe(200);
    expect(mostInFlight).toBe(2);
    expect(upstreamCalls().sort()).toEqual(["GET /things/3", "GET /things?page=1"]);
    expect(document.querySelector("section h2")?.textContent).toBe("Cedar");
    expect(text(document, "section dd")).toEqual(["20", "Blue", "Yes", "None", "Active"]);
    const current = 'ul[aria-label="Things"] a[aria-current="page"]';
    expect(textOf(document, current)).toBe("Cedar");
  });

  it("words the API's 404 as the page's own, with the list still there", async () => {
    api.things.delete("3");
    const { response, document } = await get("/things/3");
    expect(response.status).toBe(404);
    expect(document.querySelector("#error-title")?.textContent).toBe("No thing with id 3");
    expect(document.querySelector(".error-status")?.textContent).toBe("Error 404");
    expect(document.body.textContent).toContain(getEnglishError("NOT_FOUND").message);
    expect(text(document, 'ul[aria-label="Things"] a')).toHaveLength(5);
  });

  it.each<[string, Answer, ErrorCode, number]>([
    ["a 503, retried twice", (res) => sendJson(res, 503, {}), "UPSTREAM_UNAVAILABLE", 3],
    ["an answer that does not match", (res) => sendJson(res, 200, { id: "3" }), BAD_ANSWER, 1],
    ["no answer in time", () => {}, "UPSTREAM_TIMEOUT", 1],
  ])(
    "shows %s as the catalogue's page, with the list still there",
    async (_case, answer, code, attempts) => {
      api.intercept(/^GET \/things\/3$/, (_req, res) => answer(res));
      const { response, document } = await get("/things/3");
      expect(response.status).toBe(errorCatalogue[code].status);
      expectCataloguePage(document, code);
      expect(text(document, 'ul[aria-label="Things"] a')).toHaveLength(5);
      expect(upstreamCalls().filter((call) => call === "GET /things/3")).toHaveLength(attempts);
    },
  );
});

describe("an answer its contract does not allow", () => {
  const badAnswers = async () =>
    total(await scrapeMetrics(server), "upstream_request_duration_seconds_count", {
      outcome: "bad_answer",
    });
  const thing = (changes: object) => () => ({ ...api.things.get("3"), ...changes });
  const THING = /^GET \/things\/3$/;

  it.each<[string, string, RegExp, () => object]>([
    ["a quantity of 12.5", "/things/3", THING, thing({ quantity: 12.5 })],
    ["a version of 1.5", "/things/3/edit", THING, thing({ version: 1.5 })],
    ["a status outside its list", "/things/3", THING, thing({ status: "lost" })],
    ["a name over its length", "/things/3/edit", THING, thing({ name: "x".repeat(61) })],
    ["a page of 1.5", "/things", /^GET \/things\?/, () => ({ items: [], page: 1.5, pageCount: 1 })],
  ])("shows %s as the catalogue's 502 page, a bad answer", async (_case, path, route, answer) => {
    const before = await badAnswers();
    api.intercept(route, (_req, res) => sendJson(res, 200, answer()));
    const { response, document } = await get(path);
    expect(response.status).toBe(502);
    expectCataloguePage(document, BAD_ANSWER);
    expect(await badAnswers()).toBe(before + 1);
  });
});

describe("adding a thing", () => {
  it("sends the trimmed, typed values and answers 303 to its page with a flash", async () => {
    const { response } = await post("/things/new", validThing);
    expectFlashRedirect(response, "/things/13");
    const sent = { name: "Zinc", quantity: 12, colour: "green", featured: true, notes: "" };
    expect(sentBody()).toEqual(sent);
    const { document } = await get("/things/13");
    expect(document.querySelector("section h2")?.textContent).toBe("Zinc");
  });

  it("answers 400 with each error beside its field and what was typed, calling none", async () => {
    const fields = { name: "   ", quantity: "1.5", colour: "pink" };
    const { response, document } = await post("/things/new", fields);
    expect(response.status).toBe(400);
    expect(text(document, ".error-summary a")).toEqual([
      "Enter a name.",
      "Enter the quantity as a whole number, like 12.",
      "Choose a colour.",
    ]);
    expect(document.querySelector(".error-summary")?.hasAttribute("autofocus")).toBe(true);
    const name = document.querySelector<HTMLInputElement>("#thing-form-name")!;
    expect(name.value).toBe("   ");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById("thing-form-name-error")?.textContent).toBe("Enter a name.");
    expect(inputValue(document, "#thing-form-quantity")).toBe("1.5");
    expect(upstreamCalls()).toEqual([]);

    const tooLong = await post("/things/new", { ...validThing, name: "x".repeat(61) });
    expect(text(tooLong.document, ".error-summary a")).toEqual([
      "Enter a name of 60 characters or fewer.",
    ]);
  });

  it.each(["en", "ar"] as const)(
    "shows the API's 422 beside its field, in %s",
    async (language) => {
      const birch = { ...validThing, name: "Birch" };
      const { response, document } = await post("/things/new", birch, language);
      expect(response.status).toBe(422);
      const message = thingMessages[language]["things.form.nameTaken"];
      expect(text(document, ".error-summary a")).toEqual([message]);
      expect(document.getElementById("thing-form-name-error")?.textContent).toBe(message);
      expect(document.querySelector("main [lang]")).toBeNull();
      expect(inputValue(document, "#thing-form-name")).toBe("Birch");
    },
  );

  // A pointer the call maps to no key: the API's words, in the language its answer names, else
  // in API_LANGUAGE's (en), so that an Arabic page never says they are Arabic.
  it.each([
    [{}, "Too long.", "en"],
    [{ "content-language": "fr-CA" }, "Trop long.", "fr-CA"],
  ])("marks the API's own words with their language: %j", async (headers, detail, lang) => {
    const body = JSON.stringify({ errors: [{ pointer: "#/notes", detail }] });
    api.intercept(/^POST \/things$/, (_req, res) => res.writeHead(422, headers).end(body));
    const { response, document } = await post("/things/new", validThing, "ar");
    expect(response.status).toBe(422);
    const marked = document.querySelector("#thing-form-notes-error [lang]");
    expect([marked?.textContent, marked?.getAttribute("lang")]).toEqual([detail, lang]);
  });

  // The API failing on a write answers the form that posted: its status, and what was typed.
  it.each<[string, Answer, ErrorCode, "en" | "ar"]>([
    [
      "a 422 it cannot read",
      (res) => res.writeHead(422, { "content-type": "text/html" }).end("<p>no</p>"),
      BAD_ANSWER,
      "en",
    ],
    ["a 503, not retried", (res) => sendJson(res, 503, {}), "UPSTREAM_UNAVAILABLE", "ar"],
    ["a 409 the call does not expect", (res) => sendProblem(res, 409, {}), BAD_ANSWER, "ar"],
    ["no answer in time", () => {}, "UPSTREAM_TIMEOUT", "en"],
    ["a reset before any answer", (res) => res.socket?.destroy(), "UPSTREAM_UNAVAILABLE", "ar"],
  ])("answers %s on the form, with what was typed", async (_case, answer, code, language) => {
    api.intercept(/^POST \/things$/, (_req, res) => answer(res));
    const { response, document } = await post("/things/new", validThing, language);
    expect(response.status).toBe(errorCatalogue[code].status);
    const words = shellMessages[language];
    expect(shownText(document, "h2")).toEqual([words[`errors.${code}.title`]]);
    expect(shownText(document, "li")).toEqual([words[`errors.${code}.message`]]);
    expect(inputValue(document, "#thing-form-name")).toBe(validThing.name);
    expect(upstreamCalls()).toEqual(["POST /things"]);
  });
});

describe("editing a thing", () => {
  it("opens the form filled in with the thing and the version it was read at", async () => {
    const { document } = await get("/things/3/edit");
    const value = (selector: string) => inputValue(document, selector);
    expect(value("#thing-form-name")).toBe("Cedar");
    expect(value("#thing-form-quantity")).toBe("20");
    expect(value("#thing-form-colour")).toBe("blue");
    expect(document.querySelector<HTMLInputElement>("#thing-form-featured")?.checked).toBe(true);
    expect(value("#thing-form-notes")).toBe("");
    expect(value('input[name="version"]')).toBe("1");
  });

  it("sends the changes with the version, and answers 303 to the thing's page", async () => {
    const { response } = await post("/things/3/edit", { ...validThing, version: "1" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/things/3");
    expect(upstream.received[0]).toMatchObject({ method: "PATCH", url: "/things/3" });
    expect(sentBody()).toMatchObject({ name: "Zinc", version: 1 });
    expect(api.things.get("3")).toMatchObject({ name: "Zinc", version: 2 });
  });

  it("shows the API's 409 on the form, which then holds the latest data and version", async () => {
    api.things.set("3", { ...api.things.get("3")!, colour: "red", version: 2 });
    const { response, document } = await post("/things/3/edit", { ...validThing, version: "1" });
    expect(response.status).toBe(409);
    expect(summaries(document)).toEqual(["thing-form-error-summary-title"]);
    expect(shownText(document, "li")).toEqual([expect.stringMatching(/^Someone else changed/)]);
    // What was typed is not offered again over the other change (RFC 9110 §13.1).
    const value = (selector: string) => inputValue(document, selector);
    expect([value("#thing-form-name"), value("#thing-form-colour")]).toEqual(["Cedar", "red"]);
    expect(value('input[name="version"]')).toBe("2");
  });

  it("shows the not-found page when the thing is gone", async () => {
    api.things.delete("3");
    const { response, document } = await post("/things/3/edit", { ...validThing, version: "1" });
    expect(response.status).toBe(404);
    expectCataloguePage(document, "NOT_FOUND");
  });
});

describe("a thing's page: one form whose buttons name a comment, a status, a delete", () => {
  const page = "/things/3?q=e&page=1";
  const form = { __form__: "thing-actions" };
  const comment = { ...form, intent: "comment", text: "  Smells of pine. " };
  const half = "Half a thought";
  const archive = { ...form, intent: "status", status: "archived", version: "1", text: half };
  const posts = () => upstreamCalls().filter((call) => !call.startsWith("GET"));
  const typedComment = (document: Document) => inputValue(document, "#thing-actions-text");
  const formVersion = (document: Document) =>
    document.querySelector('#thing-actions input[name="version"]')?.getAttribute("value");

  it("adds a trimmed comment and answers 303 to the same address, with a flash", async () => {
    const { response } = await post(page, comment);
    expectFlashRedirect(response, page);
    expect(upstream.received[0]).toMatchObject({ method: "POST", url: "/things/3/comments" });
    expect(sentBody()).toEqual({ text: "Smells of pine." });
    const { document } = await get(page);
    expect(text(document, 'ul[aria-label="Comments"] li')).toEqual(["Smells of pine."]);
    expect(typedComment(document)).toBe("");
  });

  it("answers an empty comment with 400 beside the comment, calling nothing", async () => {
    const { response, document } = await post(page, { ...comment, text: "   " });
    expect(response.status).toBe(400);
    expect(summaries(document)).toEqual(["thing-actions-error-summary-title"]);
    expect(text(document, ".error-summary a")).toEqual(["Enter a comment."]);
    expect(textOf(document, "#thing-actions-text-error")).toBe("Enter a comment.");
    expect(posts()).toEqual([]);
  });

  it("shows the API's 422 beside the comment, keeping what was typed", async () => {
    api.things.set("3", {
      ...api.things.get("3")!,
      comments: [{ id: "1", text: "Smells of pine." }],
    });
    const { response, document } = await post(page, comment);
    expect(response.status).toBe(422);
    const message = "This comment repeats the last one. Write something new.";
    expect(document.getElementById("thing-actions-text-error")?.textContent).toBe(message);
    expect(typedComment(document)).toBe(comment.text);
    expect(summaries(document)).toEqual(["thing-actions-error-summary-title"]);
  });

  it("changes the status at the version read, on the same page, keeping the comment", async () => {
    const before = await get(page);
    expect(textOf(before.document, '#thing-actions button[value="status"]')).toBe("Archive Cedar");
    upstream.handle(api.handle); // forgets the page's own calls
    const { response, document } = await post(page, archive);
    expect(response.status).toBe(200);
    expect(posts()).toEqual(["POST /things/3/status"]);
    expect(sentBody()).toEqual({ status: "archived", version: 1 });
    expect(api.things.get("3")).toMatchObject({ status: "archived", version: 2 });
    expect(textOf(document, "section [role=status]")).toBe("Cedar is now archived.");
    expect(typedComment(document)).toBe(half);
    expect(text(document, "section dd").at(-1)).toBe("Archived");
    expect(textOf(document, "#thing-actions button[value=status]")).toBe("Restore Cedar");
    expect(formVersion(document)).toBe("2");
  });

  it("shows the API's 409 on its form, the thing as it is now, and the comment", async () => {
    api.things.set("3", { ...api.things.get("3")!, status: "archived", version: 2 });
    const { response, document } = await post(page, archive);
    expect(response.status).toBe(409);
    expect(summaries(document)).toEqual(["thing-actions-error-summary-title"]);
    expect(shownText(document, "h2")).toEqual([getEnglishError("NOT_CHANGED").title]);
    expect(shownText(document, "li")).toEqual([expect.stringMatching(/^Someone else changed/)]);
    const summary = '[aria-labelledby="thing-actions-error-summary-title"]';
    expect(document.querySelector(summary)?.hasAttribute("autofocus")).toBe(true);
    expect(typedComment(document)).toBe(half);
    expect(text(document, "section dd").at(-1)).toBe("Archived");
    expect(text(document, 'ul[aria-label="Things"] li')).toContain("Cedar (Archived)");
    expect(formVersion(document)).toBe("2");
  });

  it("shows the API's 403 on its form", async () => {
    api.intercept(/^POST \/things\/3\/status$/, (_req, res) => sendProblem(res, 403, {}));
    const { response, document } = await post(page, archive);
    expect(response.status).toBe(403);
    expect(shownText(document, "h2")).toEqual([getEnglishError("FORBIDDEN").title]);
    expect(shownText(document, "li")).toEqual(["You may not change the status of this thing."]);
    expect(api.things.get("3")?.status).toBe("active");
  });

  it("deletes after the in-place question, and answers 303 to the list with a flash", async () => {
    const { document } = await get(page);
    expect(text(document, "#thing-actions details summary, #thing-actions details button")).toEqual(
      ["Delete Cedar", "Yes, delete Cedar"],
    );
    upstream.handle(api.handle); // forgets the page's own calls
    const { response } = await post(page, { ...form, intent: "delete", text: half });
    expectFlashRedirect(response, "/things");
    expect(posts()).toEqual(["DELETE /things/3"]);
    expect(api.things.has("3")).toBe(false);
  });

  it.each([
    ["no intent", { text: "Hello" }],
    ["an intent the page does not have", { intent: "publish", text: "Hello" }],
    ["an intent inherited from Object", { intent: "constructor" }],
    ["an item that is not a name", { intent: "comment:a.b", text: "Hello" }],
    ["a status the thing cannot have", { ...archive, status: "deleted" }],
  ])("answers %s with 400, calling nothing", async (_case, fields) => {
    const { response } = await post(page, fields);
    expect(response.status).toBe(400);
    expect(posts()).toEqual([]);
  });

  it("refuses two intents in one post with the catalogue's 400 page", async () => {
    const body = "intent=comment&intent=status&text=Hi&status=archived&version=1";
    const { response, document } = await post(page, body);
    expect(response.status).toBe(400);
    expectCataloguePage(document, "BAD_REQUEST");
    expect(posts()).toEqual([]);
  });
});

describe("the stock page: one form, whose rows' buttons name their row", () => {
  const typed = { "4.version": "1", "4.quantity": "31", note: "Counted twice." };
  const postRow = (intent: string, fields: Record<string, string>, language = "en") =>
    post("/things/stock", { __form__: "stock", ...typed, intent, ...fields }, language);
  const finishCheck = (note: string) =>
    post("/things/stock", { __form__: "stock", intent: "finish", note });
  const value = (document: Document, name: string) =>
    document.querySelector<HTMLInputElement>(`[name="${name}"]`)?.value;
  // What else was typed on the page, given back whatever the reply (row 4's quantity, the note).
  const typedElsewhere = (document: Document) => [
    value(document, "4.quantity"),
    value(document, "note"),
  ];
  const posts = () => upstreamCalls().filter((call) => !call.startsWith("GET"));
  // A reply lands on the row that posted: under its field, or for the row as a whole on the row.
  const onRow = (document: Document, id: string, field = "") => {
    const error = document.getElementById(`stock-${id}${field}-error`);
    expect(document.getElementById(`stock-${id}`)?.contains(error)).toBe(true);
    expect(summaries(document)).toEqual(["stock-error-summary-title"]);
    return error?.textContent;
  };

  it("lists the things in stock in one form, a group for each with its quantity", async () => {
    const { response, document } = await get("/things/stock");
    expect(response.status).toBe(200);
    expect(upstreamCalls()).toEqual(["GET /things?inStock=true&page=1"]);
    const names = ["Birch", "Cedar", "Dune", "Ember", "Fern"];
    expect(text(document, 'ul[aria-label="Stock"] legend')).toEqual(names);
    expect(text(document, 'ul[aria-label="Stock"] label')).toEqual(
      names.map((name) => `Quantity of ${name}`),
    );
    expect([value(document, "3.quantity"), value(document, "3.version")]).toEqual(["20", "1"]);
    expect(document.querySelectorAll("main form")).toHaveLength(1);
  });

  it("updates one row at the version it was read, and answers 303 back with a flash", async () => {
    const { response } = await postRow("update:3", { "3.version": "1", "3.quantity": " 25 " });
    expectFlashRedirect(response, "/things/stock");
    expect(posts()).toEqual(["PUT /things/3/quantity"]);
    expect(sentBody()).toEqual({ quantity: 25, version: 1 });
    expect(api.things.get("3")).toMatchObject({ quantity: 25, version: 2 });
  });

  it("answers a bad quantity with 400 beside it, calling nothing", async () => {
    const { response, document } = await postRow("update:3", {
      "3.version": "1",
      "3.quantity": "x",
    });
    expect(response.status).toBe(400);
    expect(onRow(document, "3", ".quantity")).toBe(
      "Enter the quantity as a whole number, like 12.",
    );
    expect(document.querySelectorAll("[aria-invalid]")).toHaveLength(1);
    expect([value(document, "3.quantity"), ...typedElsewhere(document)]).toEqual([
      "x",
      "31",
      "Counted twice.",
    ]);
    expect(posts()).toEqual([]);
  });

  it.each(["en", "ar"] as const)(
    "shows the API's 422 beside the row's quantity, in %s",
    async (language) => {
      const fields = { "2.version": "1", "2.quantity": "5" };
      const { response, document } = await postRow("update:2", fields, language);
      expect(response.status).toBe(422);
      expect(onRow(document, "2", ".quantity")).toBe(
        thingMessages[language]["things.stock.archivedInStock"],
      );
      expect(value(document, "2.quantity")).toBe("5");
    },
  );

  it("removes a row without checking the quantity typed in it", async () => {
    const { response } = await postRow("remove:3", { "3.version": "1", "3.quantity": "lots" });
    expect(response.status).toBe(303);
    expect(sentBody()).toEqual({ quantity: 0, version: 1 });
    const { document } = await get("/things/stock");
    expect(value(document, "3.quantity")).toBeUndefined();
  });

  // After a 409 the row offers the latest quantity and version, never what was typed over them.
  it.each([
    ["on its row, which shows the latest stock", 15, "en"],
    ["on its row, in Arabic", 15, "ar"],
    ["above the rows when the row is gone", 0, "en"],
  ] as const)("shows a 409 %s, keeping what else was typed", async (_case, quantity, language) => {
    api.things.set("3", { ...api.things.get("3")!, quantity, version: 2 });
    const { response, document } = await postRow(
      "update:3",
      { "3.version": "1", "3.quantity": "7" },
      language,
    );
    expect(response.status).toBe(409);
    const message = thingMessages[language]["things.changed.stock"];
    expect(shownText(document, "h2")).toEqual([
      shellMessages[language]["errors.NOT_CHANGED.title"],
    ]);
    expect(shownText(document, "li")).toEqual([message]);
    if (quantity) expect(onRow(document, "3")).toBe(message);
    const row = [value(document, "3.quantity"), value(document, "3.version")];
    expect(row).toEqual(quantity ? ["15", "2"] : [undefined, undefined]);
    expect(typedElsewhere(document)).toEqual(["31", "Counted twice."]);
  });

  it.each<[Answer, ErrorCode, "en" | "ar"]>([
    [(res) => sendJson(res, 503, {}), "UPSTREAM_UNAVAILABLE", "en"],
    [(res) => sendJson(res, 500, {}), BAD_ANSWER, "ar"],
  ])("answers the API failing on a row's write on that row: %#", async (answer, code, language) => {
    api.intercept(/^PUT \/things\/3\/quantity$/, (_req, res) => answer(res));
    const { response, document } = await postRow(
      "update:3",
      { "3.version": "1", "3.quantity": "7" },
      language,
    );
    expect(response.status).toBe(errorCatalogue[code].status);
    const words = shellMessages[language];
    expect(shownText(document, "h2")).toEqual([words[`errors.${code}.title`]]);
    expect(onRow(document, "3")).toBe(words[`errors.${code}.message`]);
    expect([value(document, "3.quantity"), ...typedElsewhere(document)]).toEqual([
      "7",
      "31",
      "Counted twice.",
    ]);
  });

  it("refuses the whole stock check on the form, then finishes it once Birch is gone", async () => {
    const refused = await finishCheck("Counted twice.");
    expect(refused.response.status).toBe(422);
    expect(summaries(refused.document)).toEqual(["stock-error-summary-title"]);
    const message = thingMessages.en["things.stock.archivedLeft"];
    expect(shownText(refused.document, "li")).toEqual([message]);
    expect(value(refused.document, "note")).toBe("Counted twice.");

    await postRow("remove:2", { "2.version": "1" });
    const { response } = await finishCheck("Counted twice.");
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/things");
    expect(posts()).toEqual(["POST /stock-checks", "PUT /things/2/quantity", "POST /stock-checks"]);
  });

  it("answers a note that is too long with 400 beside the note", async () => {
    const { response, document } = await finishCheck("n".repeat(501));
    expect(response.status).toBe(400);
    const message = "Enter a note of 500 characters or fewer.";
    expect(textOf(document, "#stock-note-error")).toBe(message);
    expect(posts()).toEqual([]);
  });
});

// A date-time field reads and shows times on the clocks of TIME_ZONE (here Europe/Berlin); the
// toolkit's controls page (tests/support/fault-routes/controls.tsx) saves them as instants.
describe("a date-time field", () => {
  const controls = {
    __form__: "controls",
    intent: "stay",
    name: "N",
    size: "small",
    colour: "red",
  };

  it.each([
    ["2025-06-01T12:00", "2025-06-01T10:00:00.000Z", "2025-06-01T12:00"],
    ["2025-03-30T02:30", "2025-03-30T01:30:00.000Z", "2025-03-30T03:30"], // skipped: moved on
    ["2025-10-26T02:30", "2025-10-26T00:30:00.000Z", "2025-10-26T02:30"], // twice: the first
  ])("saves %s as the instant %s, shown again as %s", async (due, instant, shown) => {
    const { response, document } = await post("/faults/controls", { ...controls, due });
    expect(response.status).toBe(200);
    expect(textOf(document, "#controls-due-description")).toBe(`Saved as ${instant}`);
    expect(inputValue(document, "#controls-due")).toBe(shown);
  });

  it("refuses a date the calendar has not with 400, what was typed kept", async () => {
    const due = "2025-02-29T10:00";
    const { response, document } = await post("/faults/controls", { ...controls, due });
    expect(response.status).toBe(400);
    expect(textOf(document, "#controls-due-error")).toBe("This value is not valid.");
    expect(document.querySelector("#controls-due")?.getAttribute("value")).toBe(due);
  });
});

// A browser with JavaScript posts through single fetch (`.data`): the same reply, to its form.
const staleStatus = { __form__: "thing-actions", intent: "status", version: "0" };
const badQuantity = { __form__: "stock", intent: "update:4", "4.version": "1", "4.quantity": "x" };
it.each([
  ["/things/new.data", { ...validThing, name: "Birch" }, 422, "things.form.nameTaken"],
  ["/things/3.data?q=e", staleStatus, 409, "thing-actions"],
  ["/things/stock.data", badQuantity, 400, "4.quantity"],
])("single fetch answers %s with the same reply", async (path, fields, status, words) => {
  const { response, body } = await post(path, { status: "archived", quantity: "x", ...fields });
  expect(response.status).toBe(status);
  expect(body).toContain(words);
});
