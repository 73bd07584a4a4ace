import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { errorCatalogue, type ErrorCode } from "~/lib/errors";
import { getEnglishError } from "../support/shell";
import { parseHtml } from "../support/html";
import { scrapeMetrics, total } from "../support/metrics";
import { startSuiteServer } from "../support/server";
import { createThingsApi, sendProblem, type ThingsApi } from "../support/things-api";
import { sendJson, startUpstream, type Upstream } from "../support/upstream";
import { buildReferenceApp, referenceAppBuild } from "../support/reference-app";

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
  () => ({ API_BASE_URL: upstream.url, API_TIMEOUT_MS: "1000", METRICS_PORT: "0" }),
  { cwd: referenceAppBuild, expectedStatuses: [502, 503, 504] },
);

async function get(path: string) {
  const response = await fetch(`${server.url}${path}`, { redirect: "manual" });
  return { response, document: parseHtml(await response.text()) };
}

async function post(path: string, fields: Record<string, string> | string) {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
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

  it("shows the API's 422 beside the field it points at", async () => {
    const { response, document } = await post("/things/new", { ...validThing, name: "Birch" });
    expect(response.status).toBe(422);
    const message = "Another thing already has this name. Choose a different name.";
    expect(text(document, ".error-summary a")).toEqual([message]);
    expect(document.getElementById("thing-form-name-error")?.textContent).toBe(message);
    expect(inputValue(document, "#thing-form-name")).toBe("Birch");
  });

  it.each<[string, Answer, ErrorCode]>([
    [
      "a 422 it cannot read",
      (res) => res.writeHead(422, { "content-type": "text/html" }).end("<p>no</p>"),
      BAD_ANSWER,
    ],
    ["a 503, not retried", (res) => sendJson(res, 503, {}), "UPSTREAM_UNAVAILABLE"],
    ["a 409 the call does not expect", (res) => sendProblem(res, 409, {}), BAD_ANSWER],
  ])("shows %s as the catalogue's page", async (_case, answer, code) => {
    api.intercept(/^POST \/things$/, (_req, res) => answer(res));
    const { response, document } = await post("/things/new", validThing);
    expect(response.status).toBe(errorCatalogue[code].status);
    expectCataloguePage(document, code);
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

describe("the stock page: a form on every row, and one for the whole page", () => {
  const postRow = (id: string, fields: Record<string, string>) =>
    post("/things/stock", { __form__: `stock-${id}`, id, ...fields });
  const finishCheck = (note: string) =>
    post("/things/stock", { __form__: "stock-check", intent: "finish", note });
  const value = (document: Document, id: string) => inputValue(document, `#stock-${id}-quantity`);
  const posts = () => upstreamCalls().filter((call) => !call.startsWith("GET"));

  it("lists the things in stock, each with its own form and its quantity", async () => {
    const { response, document } = await get("/things/stock");
    expect(response.status).toBe(200);
    expect(upstreamCalls()).toEqual(["GET /things?inStock=true&page=1"]);
    expect(text(document, 'ul[aria-label="Stock"] label')).toEqual([
      "Quantity of Birch",
      "Quantity of Cedar",
      "Quantity of Dune",
      "Quantity of Ember",
      "Quantity of Fern",
    ]);
    expect(value(document, "3")).toBe("20");
    expect(document.querySelectorAll('ul[aria-label="Stock"] form')).toHaveLength(5);
  });

  it("updates one row at the version it was read, and answers 303 back with a flash", async () => {
    const { response } = await postRow("3", { intent: "update", version: "1", quantity: " 25 " });
    expectFlashRedirect(response, "/things/stock");
    expect(posts()).toEqual(["PUT /things/3/quantity"]);
    expect(sentBody()).toEqual({ quantity: 25, version: 1 });
    expect(api.things.get("3")).toMatchObject({ quantity: 25, version: 2 });
  });

  // A reply comes back to the row that posted it: its error beside its field, the others alone.
  const expectRowError = (document: Document, id: string, message: string) => {
    expect(summaries(document)).toEqual([`stock-${id}-error-summary-title`]);
    expect(document.getElementById(`stock-${id}-quantity-error`)?.textContent).toBe(message);
    expect(document.querySelectorAll("[aria-invalid]")).toHaveLength(1);
  };

  it("answers a bad quantity with 400 on its own row only, calling nothing", async () => {
    const update = { intent: "update", version: "1", quantity: "lots" };
    const { response, document } = await postRow("3", update);
    expect(response.status).toBe(400);
    expectRowError(document, "3", "Enter the quantity as a whole number, like 12.");
    expect([value(document, "3"), value(document, "4")]).toEqual(["lots", "30"]);
    expect(posts()).toEqual([]);
  });

  it("shows the API's 422 beside the row it is about", async () => {
    const update = { intent: "update", version: "1", quantity: "5" };
    const { response, document } = await postRow("2", update);
    expect(response.status).toBe(422);
    expectRowError(document, "2", "An archived thing cannot be in stock. Remove it instead.");
    expect(value(document, "2")).toBe("5");
  });

  it("removes a row without checking the quantity typed in it", async () => {
    const { response } = await postRow("3", { intent: "remove", version: "1", quantity: "lots" });
    expect(response.status).toBe(303);
    expect(sentBody()).toEqual({ quantity: 0, version: 1 });
    const { document } = await get("/things/stock");
    expect(value(document, "3")).toBeUndefined();
  });

  // After a 409 the row offers the latest quantity and version, never what was typed over them.
  it.each([
    ["on its row, which shows the latest stock", 15, "stock-3-error-summary-title", "15"],
    ["above the list when the row is gone", 0, "page-message-title", undefined],
  ])("shows a 409 %s", async (_case, quantity, summary, shown) => {
    api.things.set("3", { ...api.things.get("3")!, quantity, version: 2 });
    const update = { intent: "update", version: "1", quantity: "7" };
    const { response, document } = await postRow("3", update);
    expect(response.status).toBe(409);
    expect(summaries(document)).toEqual([summary]);
    expect(shownText(document, "h2")).toEqual([getEnglishError("NOT_CHANGED").title]);
    expect(shownText(document, "li")).toEqual([
      expect.stringMatching(/The list now shows the latest/),
    ]);
    expect(value(document, "3")).toBe(shown);
    const version = document.querySelector<HTMLInputElement>('#stock-3 input[name="version"]');
    expect(version?.value).toBe(shown && "2");
  });

  it("refuses the whole stock check on its form, then finishes it once Birch is gone", async () => {
    const refused = await finishCheck("Counted twice.");
    expect(refused.response.status).toBe(422);
    expect(summaries(refused.document)).toEqual(["stock-check-error-summary-title"]);
    expect(shownText(refused.document, "li")).toEqual(["Birch is archived but still in stock."]);
    expect(inputValue(refused.document, "#stock-check-note")).toBe("Counted twice.");

    await postRow("2", { intent: "remove", version: "1" });
    const { response } = await finishCheck("Counted twice.");
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/things");
    expect(posts()).toEqual(["POST /stock-checks", "PUT /things/2/quantity", "POST /stock-checks"]);
  });

  it("answers a note that is too long with 400 beside the note", async () => {
    const { response, document } = await finishCheck("n".repeat(501));
    expect(response.status).toBe(400);
    const message = "Enter a note of 500 characters or fewer.";
    expect(textOf(document, "#stock-check-note-error")).toBe(message);
    expect(posts()).toEqual([]);
  });
});

// A browser with JavaScript posts through single fetch (`.data`): the same reply, to its form.
const staleStatus = { __form__: "thing-actions", intent: "status", version: "0" };
const badQuantity = { __form__: "stock-4", intent: "update", id: "4", version: "1" };
it.each([
  ["/things/new.data", { ...validThing, name: "Birch" }, 422, "Another thing already has"],
  ["/things/3.data?q=e", staleStatus, 409, "thing-actions"],
  ["/things/stock.data", badQuantity, 400, "stock-4"],
])("single fetch answers %s with the same reply", async (path, fields, status, words) => {
  const { response, body } = await post(path, { status: "archived", quantity: "x", ...fields });
  expect(response.status).toBe(status);
  expect(body).toContain(words);
});
