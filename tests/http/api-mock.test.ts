import path from "node:path";
import { describe, expect, it } from "vitest";
import ar from "~/i18n/shell.ar.server";
import en from "~/i18n/shell.en.server";
import { readContracts } from "../../server/api-mock/contracts";
import { startSuiteMockedServer } from "../support/api-mock";
import { parseHtml } from "../support/html";
import { Browser, signInThroughProvider } from "../support/oidc-browser";
import { readMainThreadCpuMs } from "../support/process-stats";
import { referenceAppBuild } from "../support/reference-app";
import { getLogLines } from "../support/server";

// The reference feature as `npm run dev` serves it with no API running: every call answered by
// the API mock (server/api-mock/) from the feature's contract (app/api/contracts/things.yaml).

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const NOTICE = en["layout.apiMock"];
const THING = { name: "Zinc", quantity: "1", colour: "red" };
const QUANTITY = { intent: "update:1", "1.version": "1", "1.quantity": "3" };
const NO_OPERATION = "API mock: no operation of the contracts answers this call";
const REFUSED = "API mock: the contract refuses what was sent";

const page = async (response: Response) => ({
  status: response.status,
  text: parseHtml(await response.text()).body.textContent ?? "",
});

describe("the reference feature with the API mock on", () => {
  const server = startSuiteMockedServer(
    { API_TIMEOUT_MS: "1500" },
    { expectedStatuses: [502, 503, 504] },
  );
  const get = (path: string, picks = "") =>
    fetch(server.url + path, { headers: { cookie: `api-mock=${picks}` } }).then(page);

  it.each([
    ["/things", "Amber"],
    ["/things?q=am&status=active&page=2", "Cedar"],
    ["/things/2", "Quantity12"],
    ["/things/1/edit", "Edit Amber"],
    ["/things/new", "Add a thing"],
    ["/things/stock", "Quantity of Birch"],
  ])("renders %s from the contract's examples, saying so", async (path, shown) => {
    const { status, text } = await get(path);
    expect(status).toBe(200);
    expect(text).toContain(shown);
    expect(text).toContain(NOTICE);
  });

  it("says so in the page's language", async () => {
    const arabic = await fetch(`${server.url}/things`, { headers: { "accept-language": "ar" } });
    const { text } = await page(arabic);
    expect(text).toContain(`${ar["layout.apiMock"]} ${ar["layout.apiMockLink"]}`);
    expect(text).not.toContain(NOTICE);
  });

  it("answers /readyz's call itself", async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it.each([
    ["listThings:200-none", "/things", 200, "There are no things yet."],
    ["getThing:200-archived", "/things/2", 200, "Checked in March."],
    ["getThing:404-notFound", "/things/2", 404, "No thing with id 2"],
    ["listThings:unavailable", "/things", 503, en["errors.UPSTREAM_UNAVAILABLE.message"]],
    ["getThing:failing", "/things/1/edit", 502, en["errors.UPSTREAM_BAD_RESPONSE.message"]],
    ["getThing:no-answer", "/things/1", 504, en["errors.UPSTREAM_TIMEOUT.message"]],
  ])("with %s picked, %s shows it", async (picks, path, status, shown) => {
    expect(await get(path, picks)).toMatchObject({ status, text: expect.stringContaining(shown) });
  });

  it.each([
    ["createThing:422-nameTaken", "/things/new", THING, "Another thing already has this name."],
    ["finishStockCheck:422-archivedInStock", "/things/stock", { intent: "finish" }, "is still"],
    ["setThingQuantity:409-changed", "/things/stock", QUANTITY, "Someone else changed"],
  ])("with %s picked, a post to %s is refused on its form", async (picks, path, fields, shown) => {
    const response = await fetch(server.url + path, {
      method: "POST",
      headers: { ...FORM, cookie: `api-mock=${picks}` },
      body: new URLSearchParams(fields),
    });
    expect(await page(response)).toMatchObject({
      status: expect.any(Number),
      text: expect.stringContaining(shown),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
  });

  it("lists every call's answers on its page, and keeps the ones picked in a cookie", async () => {
    const browser = new Browser();
    const listed = parseHtml(await (await browser.fetch(`${server.url}/_api-mock`)).text());
    const options = (name: string) =>
      [...listed.querySelectorAll(`select[name=${name}] option`)].map((o) => o.textContent);
    expect(options("createThing")).toEqual([
      "201, Amber",
      "422, Name taken",
      "503, the API is unavailable",
      "500, the API fails",
      "No answer before the deadline",
    ]);
    // Every call of every contract the app holds, each with every answer, however many there are.
    const { operations } = readContracts(path.join(referenceAppBuild, "app/api/contracts"));
    const selects = [...listed.querySelectorAll("select")].map((select) =>
      select.getAttribute("name"),
    );
    expect(selects).toEqual(operations.map(({ id }) => id));
    for (const { id, answers } of operations)
      expect(options(id), id).toEqual(answers.map(({ label }) => label));

    const pick = (body: Record<string, string>) =>
      browser.fetch(`${server.url}/_api-mock`, {
        method: "POST",
        headers: FORM,
        body: new URLSearchParams(body),
      });
    const picked = await pick({ listThings: "200-none", createThing: "201-added", nope: "x" });
    expect(picked.headers.get("location")).toBe("/_api-mock?saved");
    expect((await page(await browser.fetch(`${server.url}/_api-mock?saved`))).text).toContain(
      "Your answers are saved.",
    );
    expect(browser.jar(server.url).get("api-mock")).toBe("listThings:200-none");
    expect(await page(await browser.fetch(`${server.url}/things`))).toMatchObject({
      text: expect.stringContaining("There are no things yet."),
    });
    await pick({ reset: "1", listThings: "200-none" });
    expect(browser.jar(server.url).get("api-mock")).toBeUndefined();
  });

  it.each([
    ["huge", "x".repeat(8_000)],
    ["malformed", "%E0%A4%A:%FF,::,,:"],
    ["naming unknown calls and answers", "nope:201-added,listThings:nope,__proto__:unavailable"],
    ["naming the same call again and again", "a:b,".repeat(2_000) + "listThings:unavailable"],
    ["picking a default answer", "listThings:200-some"],
  ])("a scenario cookie %s is ignored", async (_, picks) => {
    expect(await get("/things", picks)).toMatchObject({
      status: 200,
      text: expect.stringContaining("Amber"),
    });
  });

  it("refuses a scenario form larger than a page of picks", async () => {
    const response = await fetch(`${server.url}/_api-mock`, {
      method: "POST",
      headers: FORM,
      body: `listThings=${"x".repeat(100_000)}`,
    });
    expect(response.status).toBe(413);
  });

  it("signs in through its own provider: any login, which is also the visitor's role", async () => {
    const browser = new Browser();
    const back = await signInThroughProvider(browser, server.url, "editor", "/things/1/feature");
    expect(back.headers.get("location")).toBe("/things/1/feature");
    expect(await page(await browser.fetch(`${server.url}/things/1/feature`))).toMatchObject({
      status: 200,
      text: expect.stringContaining("Feature Amber"),
    });
  });
});

describe("calls the API mock cannot answer", () => {
  const server = startSuiteMockedServer(
    {},
    { expectedStatuses: [502], said: [NO_OPERATION, REFUSED] },
  );

  // The failure tests' calls (tests/support/fault-routes) are not in the feature's contract.
  it.each([
    ["/faults/loose/1", NO_OPERATION],
    ["/call/1?q=x", REFUSED],
  ])("%s: a 502 page, and a line at error level", async (path, said) => {
    expect((await fetch(server.url + path)).status).toBe(502);
    await expect.poll(() => getLogLines(server, '"level":50', said)).toHaveLength(1);
  });
});

describe("bodies sent to the API mock", () => {
  const server = startSuiteMockedServer({}, { said: [REFUSED] });
  const LIMIT = 1_048_576;
  const thing = { name: "Zinc", quantity: 1, colour: "red", featured: false, notes: "" };
  const post = async (body: string) => {
    const headers = { "content-type": "application/json" };
    const response = await fetch(`${server.mockUrl}/things`, { method: "POST", headers, body });
    const { detail } = (await response.json()) as { detail: string };
    return { status: response.status, detail };
  };
  // The main thread's CPU time for one answer, the least of three.
  const cost = async (body: string) => {
    let least = Infinity;
    for (let round = 0; round < 3; round++) {
      const before = readMainThreadCpuMs(server.child.pid!);
      await post(body);
      least = Math.min(least, readMainThreadCpuMs(server.child.pid!) - before);
    }
    return least;
  };
  const valid = JSON.stringify({ ...thing, notes: "n".repeat(LIMIT - 200) });
  const cases: [string, string, number, string][] = [
    [
      "nested 500,000 deep",
      "[".repeat(LIMIT / 2) + "]".repeat(LIMIT / 2),
      400,
      "nested deeper than 64",
    ],
    [
      "nested 64 deep, to the limit",
      "[".repeat(64) + "0,".repeat(LIMIT / 2 - 100) + "0" + "]".repeat(64),
      400,
      "body: must be object",
    ],
    [
      "60,000 fields the contract does not name",
      JSON.stringify({
        ...thing,
        ...Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`f${i}`, i])),
      }),
      201,
      "",
    ],
    [
      "a name of the wrong type",
      JSON.stringify({ ...thing, name: 1 }),
      400,
      "body.name: must be string",
    ],
    ["not JSON", "n".repeat(LIMIT - 1), 400, "body: not JSON"],
    ["over the limit", `"${"x".repeat(LIMIT)}"`, 413, "The body is too large."],
  ];

  it.each(cases)("%s", async (_, body, status, detail) => {
    const answer = await post(body);
    expect(answer.status).toBe(status);
    if (detail) expect(answer.detail).toContain(detail);
  });

  // Parsed, half a million brackets cost thirty times a valid body; many small fields, five.
  it("costs what a valid body of its size costs, within ten times", async () => {
    const calibration = await cost(valid);
    for (const [name, body] of cases) {
      const ratio = (await cost(body)) / calibration;
      expect(ratio, name).toBeLessThan(10);
    }
  });
});
