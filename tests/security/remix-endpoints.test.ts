import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "~/lib/errors";
import { getEnglishError } from "../support/shell";
import { getHeading } from "../support/html";
import { buildReferenceApp, referenceAppBuild } from "../support/reference-app";
import { createCostMeter, LOOP_DELAY_OPTIONS, MAX_RELATIVE_COST } from "../support/request-cost";
import { startSuiteServer } from "../support/server";

/**
 * The requests Remix answers by itself with lists the visitor writes (route discovery's `p`,
 * single fetch's `_routes`, `?index`), against the reference app's build: its routes have
 * params, as a real app's do. Each is measured by createCostMeter.
 */
// Remix's and its browser code's limit on a route discovery URL, origin included.
const DISCOVERY_URL_LIMIT = 7_680;
const TOO_LONG: ErrorCode = "URI_TOO_LONG";

beforeAll(() => buildReferenceApp());

const server = startSuiteServer({ NODE_OPTIONS: LOOP_DELAY_OPTIONS }, { cwd: referenceAppBuild });
const { measure, print } = createCostMeter(server, { loopDelay: true });
let version = "";
// The most shapes of 32 segments one discovery may ask about, for this build's number of routes.
let mostShapes = 0;

beforeAll(async () => {
  // The build's version, where a browser finds it: in the manifest module the page loads.
  const page = await (await fetch(`${server.url}/not-a-page`)).text();
  const manifestUrl = /\/build\/manifest-\w+\.js/.exec(page)![0];
  const manifest = await (await fetch(server.url + manifestUrl)).text();
  version = /"version":"(\w+)"/.exec(manifest)![1]!;
  const buildUrl = pathToFileURL(path.join(referenceAppBuild, "build/index.js")).href;
  const { routes } = (await import(buildUrl)) as ServerBuild;
  // At most 256 paths by shape, fewer in a larger route tree: paths times routes stays within 4,096.
  const limit = Math.min(256, Math.floor(4_096 / Object.keys(routes).length));
  while (countPrefixes(distinctShapes(mostShapes + 1, 32)) <= limit) mostShapes += 1;
});

afterAll(print);

async function get(target: string, init?: RequestInit) {
  const response = await fetch(server.url + target, init);
  return { status: response.status, body: await response.text() };
}

// As an attacker writes it: a browser percent-encodes each slash, which only lengthens the URL.
const discovery = (paths: string[]) =>
  `/__manifest?${paths.map((path) => `p=${path}`).join("&")}&version=${version}`;

/** `count` paths of `segments` segments each, a route's name (`things`) or not (`x`) as the bits of their index say. */
const distinctShapes = (count: number, segments: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      `/${Array.from({ length: segments }, (_, bit) => ((i >> bit) & 1 ? "things" : "x")).join("/")}`,
  );

/** How many paths Remix would match for `paths`: each one and its parents, once. */
const countPrefixes = (paths: string[]) =>
  new Set(
    paths.flatMap((target) => {
      const segments = target.split("/").slice(1);
      return segments.map((_, i) => segments.slice(0, i + 1).join("/"));
    }),
  ).size;

/** `count` paths of `segments` segments each, none of them named by a route: one shape. */
const distinctValues = (count: number, segments: number) =>
  Array.from({ length: count }, (_, i) => `/${i}${"/a".repeat(segments - 1)}`);

/** The answer expected (200, or the catalogue's refusal), at a cost within MAX_RELATIVE_COST. */
async function expectAnsweredCheaply(
  name: string,
  target: () => string,
  expected: ErrorCode | 200,
) {
  const { relativeCost, statuses } = await measure(name, async () => (await get(target())).status);
  if (expected === 200) expect(statuses).toEqual([200]);
  else expectRefusal(await get(target()), expected);
  expect(relativeCost).toBeLessThanOrEqual(MAX_RELATIVE_COST);
}

function expectRefusal({ status, body }: { status: number; body: string }, code: ErrorCode) {
  expect(status).toBe(getEnglishError(code).status);
  expect(getHeading(body)).toBe(getEnglishError(code).title);
}

describe("route discovery (/__manifest)", () => {
  it("answers the routes of the paths a page links to, as a browser asks", async () => {
    const links = Array.from({ length: 100 }, (_, i) => `/things/${i}${i % 2 ? "/edit" : ""}`);
    const query = new URLSearchParams(
      [...links, "/things/new", "/things"].sort().map((path) => ["p", path]),
    );
    query.set("version", version);
    expect(`${server.url}/__manifest?${query}`.length).toBeLessThanOrEqual(DISCOVERY_URL_LIMIT);
    const { status, body } = await get(`/__manifest?${query}`);
    expect(status).toBe(200);
    expect(Object.keys(JSON.parse(body) as object)).toEqual(
      expect.arrayContaining([
        "routes/_site.things",
        "routes/_site.things.$id",
        "routes/_site.things_.$id.edit",
        "routes/_site.things_.new",
      ]),
    );
  });

  it.each([
    ["in upper case", "/THINGS/NEW", "routes/_site.things_.new"],
    ["percent-encoded", "/%74hings/%6Eew", "routes/_site.things_.new"],
    ["with a query in the path", "/things/new?x", "routes/_site.things_.new"],
    [
      "around a value with spaces and a plus",
      "/things/a+b%20c/edit",
      "routes/_site.things_.$id.edit",
    ],
  ])("answers the routes of a path %s as Remix matches it", async (_, path, routeId) => {
    const { status, body } = await get(discovery([path]));
    expect(status).toBe(200);
    expect(Object.keys(JSON.parse(body) as object)).toContain(routeId);
  });

  it("tells a page of an older build to reload, as Remix does", async () => {
    const response = await fetch(`${server.url}/__manifest?p=/things&version=0ld`);
    expect(response.status).toBe(204);
    expect(response.headers.get("x-remix-reload-document")).toBe("true");
  });

  it("warms up with ordinary route discovery", async () => {
    for (let i = 0; i < 5; i++)
      expect((await get(discovery(["/things", `/things/${i}`]))).status).toBe(200);
  });

  it.each<[string, () => string[], ErrorCode | 200]>([
    ["one p of 3,800 segments (the reported attack)", () => ["/a".repeat(3_800)], TOO_LONG],
    ["one p of 7,600 slashes", () => ["/".repeat(7_600)], TOO_LONG],
    ["one p of 33 segments", () => distinctValues(1, 33), TOO_LONG],
    ["one p of 32 segments", () => distinctValues(1, 32), 200],
    ["1,000 p of one segment each (one shape)", () => distinctValues(1_000, 1), 200],
    ["100 p of 32 segments each (one shape)", () => distinctValues(100, 32), 200],
    ["p of 32 segments in as many shapes as allowed", () => distinctShapes(mostShapes, 32), 200],
    ["p of 32 segments in one shape more", () => distinctShapes(mostShapes + 1, 32), TOO_LONG],
    ["16 p of 32 segments in 16 shapes (478 paths)", () => distinctShapes(16, 32), TOO_LONG],
    ["64 p of 9 segments in 64 shapes (318 paths)", () => distinctShapes(64, 9), TOO_LONG],
    ["600 copies of one p", () => Array(600).fill("/things/1"), 200],
    ["p of 2 KB in one segment", () => [`/${"a".repeat(2_000)}`, "/things"], 200],
    [
      "a URL over Remix's limit",
      () => ["/things", `/${"a".repeat(DISCOVERY_URL_LIMIT)}`],
      TOO_LONG,
    ],
    ["a p that grows past the limit once written out", () => [`/x?${"+".repeat(7_000)}`], TOO_LONG],
  ])("%s", (name, paths, expected) =>
    expectAnsweredCheaply(name, () => discovery(paths()), expected),
  );

  it("no p at all", () =>
    expectAnsweredCheaply("no p at all", () => `/__manifest?version=${version}`, "BAD_REQUEST"));

  it("refuses a write to it", async () => {
    const response = await fetch(server.url + discovery(["/things"]), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=1",
    });
    expectRefusal({ status: response.status, body: await response.text() }, "METHOD_NOT_ALLOWED");
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("single fetch (.data)", () => {
  it.each<[string, () => string, ErrorCode | 200]>([
    ["_routes as a browser sends it", () => "/things/new.data?_routes=root", 200],
    [
      "_routes naming a route the build does not have",
      () => "/things/new.data?_routes=root,nope",
      "BAD_REQUEST",
    ],
    [
      "_routes of 2,000 ids",
      () => `/things/new.data?_routes=${Array(2_000).fill("root").join(",")}`,
      "BAD_REQUEST",
    ],
    ["_routes twice", () => "/things/new.data?_routes=root&_routes=routes/_site", "BAD_REQUEST"],
    ["?index 2,000 times", () => `/things/new.data?${"index&".repeat(2_000)}_routes=root`, 200],
    ["a path of 33 segments", () => `/${"a/".repeat(32)}a.data`, TOO_LONG],
    ["Remix's legacy ?_data=", () => "/things/new?_data=root", "BAD_REQUEST"],
  ])("%s", expectAnsweredCheaply);
});
