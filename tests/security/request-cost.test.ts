import { afterAll, describe, expect, it } from "vitest";
import { REPORTS } from "../../server/edge/report-endpoints";
import { sendRaw } from "../support/raw-http";
import {
  createCostMeter,
  MAX_RELATIVE_COST,
  ONE_LARGE_VALUE,
  postForm,
} from "../support/request-cost";
import { startSuiteServer } from "../support/server";
import { http, oneByteChunks } from "./hostile-requests";

// Hostile requests as large as the server accepts, each measured by createCostMeter.
const BODY_LIMIT = 1_048_576;

const server = startSuiteServer();
const { measure, print } = createCostMeter(server);
const host = () => `127.0.0.1:${server.port}`;

afterAll(print);

/** `prefix` then `unit` repeated (with its index when it takes one) until `size` bytes at most. */
function fill(prefix: string, unit: (i: number) => string, size = BODY_LIMIT) {
  const parts = [prefix];
  let length = prefix.length;
  for (let i = 0; ; i++) {
    const part = unit(i);
    if (length + part.length > size) break;
    parts.push(part);
    length += part.length;
  }
  return parts.join("");
}

const deepJson = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

/** Measures `send`; it must get no 5xx, at a cost within MAX_RELATIVE_COST. */
async function expectCheap(name: string, send: () => Promise<number>) {
  const { relativeCost, statuses } = await measure(name, send);
  expect(statuses.every((status) => status < 500)).toBe(true);
  expect(relativeCost).toBeLessThanOrEqual(MAX_RELATIVE_COST);
}

describe("form posts up to BODY_LIMIT_BYTES", () => {
  it("warms up with an ordinary post", async () => {
    for (let i = 0; i < 5; i++)
      expect(await postForm(server, "theme=dark&redirectTo=%2F")).toBe(303);
  });

  // [name, body, status, path]
  const cases: [string, string, number, string?][] = [
    ["one name repeated to 1 MiB (the reported attack)", fill("theme=dark&", () => "a=1&"), 413],
    [
      "the same, to the single-fetch address (.data)",
      fill("theme=dark&", () => "a=1&"),
      413,
      "/preferences/theme.data",
    ],
    [
      "an unknown name repeated 999 times (under the field cap)",
      fill("theme=dark", () => "&a=1", 4_000),
      400,
    ],
    ["the form's own name repeated to 1 MiB", fill("", () => "theme=dark&"), 413],
    [
      "the form's own name repeated 1,000 times",
      fill("theme=dark", () => "&theme=dark", 11_000),
      400,
    ],
    ["distinct short names to 1 MiB", fill("theme=dark", (i) => `&n${i}=1`), 413],
    [
      "980 distinct names of 1 KB each",
      fill("theme=dark", (i) => `&${i}${"n".repeat(1_060)}=1`),
      303,
    ],
    ["one name of 1 MiB", `theme=dark&${"n".repeat(BODY_LIMIT - 20)}=1`, 303],
    [
      "990 deep paths a.b.c[0][1]… of 1 KB each",
      fill("theme=dark", (i) => `&a.b.c[${i}][1]${".d[2]".repeat(196)}=1`, 990_000),
      303,
    ],
    [
      "one deep path of 1 MiB",
      `theme=dark&${fill("a", (i) => `.b[${i}]`, BODY_LIMIT - 20)}=1`,
      303,
    ],
    [
      "deep paths under the form's own names",
      fill("theme=dark", (i) => `&theme.a[${i}][1]=1`, 15_000),
      303,
    ],
    ["an array index of 10^12 under a known name", "theme=dark&theme[999999999999]=1", 303],
    ["one value of 1 MiB", ONE_LARGE_VALUE, 303],
    [
      "a wrong theme with a 1 MiB redirectTo (echoed in the form)",
      `theme=x&redirectTo=/${"%3C%22%26".repeat(116_000)}`,
      400,
    ],
    [
      "one percent-encoded value of 1 MiB",
      `theme=dark&redirectTo=/${"%E3%80%82".repeat(116_000)}`,
      303,
    ],
    ["1 MiB of separators only", "&".repeat(BODY_LIMIT), 400],
    ["1 MiB of `=` only", "=".repeat(BODY_LIMIT), 400],
    [
      "__intent__ of 1 MiB nested JSON",
      `theme=dark&__intent__=${deepJson(BODY_LIMIT / 2 - 20)}`,
      400,
    ],
    ["__state__ of 16 KB nested JSON", `theme=dark&__state__=${deepJson(8_000)}`, 400],
    [
      "an update intent with a 16 KB nested value",
      `theme=dark&__intent__=${encodeURIComponent(`{"type":"update","payload":{"name":"theme","value":${deepJson(7_000)}}}`)}`,
      400,
    ],
    [
      "an update intent at index 10^8",
      `theme=dark&__intent__=${encodeURIComponent('{"type":"update","payload":{"name":"theme","index":99999999,"value":"x"}}')}`,
      400,
    ],
    ["a 1 MiB body to a page without an action", fill("", () => "a=1&"), 405, "/"],
  ];

  it.each(cases)("%s", async (name, body, status, path) => {
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_LIMIT);
    const { relativeCost, statuses } = await measure(name, () => postForm(server, body, path));
    expect(statuses).toEqual([status]);
    expect(relativeCost).toBeLessThanOrEqual(MAX_RELATIVE_COST);
  });
});

describe("headers up to Node's 16 KB limit", () => {
  const get =
    (target: string, headers: string[] = []) =>
    async () =>
      (await sendRaw(server.port, http(`GET ${target} HTTP/1.1`, headers)(host()))).status;

  it("warms up with ordinary pages", async () => {
    for (let i = 0; i < 5; i++) expect(await get("/")()).toBe(200);
  });

  it.each([
    ["a query of 7,500 parameters", get(`/?${Array.from({ length: 7_500 }, () => "a").join("&")}`)],
    ["a query of one name repeated 2,000 times", get(`/?${"index=&".repeat(2_000)}`)],
    [
      "a Cookie header of 1,500 cookies",
      get("/", [`Cookie: ${Array.from({ length: 1_500 }, (_, i) => `c${i}=v`).join("; ")}`]),
    ],
    [
      "a Cookie header of 15 KB in one theme cookie",
      get("/", [`Cookie: theme=${"a".repeat(15_000)}`]),
    ],
    ["1,900 headers of one name", get("/", Array(1_900).fill("x: y"))],
    [
      "1,500 distinct headers",
      get(
        "/",
        Array.from({ length: 1_500 }, (_, i) => `x${i}: y`),
      ),
    ],
    ["a path of 7,000 segments", get(`/${"a/".repeat(7_000)}`)],
    ["a path of 32 segments of 400 characters", get(`/${`${"a".repeat(400)}/`.repeat(32)}`)],
    ["a path of 15,000 slashes", get("/".repeat(15_000))],
    ["a path of 5,000 encoded characters", get(`/${"%E3%80%82".repeat(1_600)}`)],
    ["a User-Agent of 15 KB", get("/", [`User-Agent: Mozilla/5.0 ${"(a; b) ".repeat(2_100)}`])],
    [
      "a bot-like User-Agent of 15 KB",
      get("/", [`User-Agent: ${"bot crawler spider ".repeat(780)}`]),
    ],
    [
      "an Accept-Encoding of 2,000 codings",
      get("/", [`Accept-Encoding: ${"gzip;q=0.5, ".repeat(1_200)}`]),
    ],
    [
      "a Range of 2,000 parts on a file",
      get("/favicon.svg", [`Range: bytes=${"0-1,".repeat(2_000)}0-1`]),
    ],
    [
      "an If-None-Match of 2,000 tags on a page",
      get("/", [`If-None-Match: ${'W/"x", '.repeat(2_000)}*`]),
    ],
    [
      "an If-None-Match of 2,000 tags on a file",
      get("/favicon.svg", [`If-None-Match: ${'"x", '.repeat(2_000)}"y"`]),
    ],
  ])("%s", expectCheap);
});

describe("reports from browsers, as large as their endpoints take", () => {
  const report = (type: string, body: string) => async () => {
    const path =
      type.includes("csp") || type.includes("reports") ? "/__reports/csp" : "/__reports/vitals";
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": type },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  };
  const violation = JSON.stringify({ type: "csp-violation", body: { blockedURL: "inline" } });
  it.each([
    [
      "a CSP report of 64 KB nested arrays",
      report("application/csp-report", `[${"[".repeat(32_000)}${"]".repeat(32_000)}]`),
    ],
    [
      "a batch of 64 KB of violations",
      report("application/reports+json", `[${fill(violation, () => `,${violation}`, 65_000)}]`),
    ],
    [
      "a beacon of 1 KB",
      report(
        "application/x-www-form-urlencoded",
        fill("route=root", () => "&LCP=1", 1_024),
      ),
    ],
    // Cut at the limit, then drained a moment and closed.
    ...Object.values(REPORTS).map(({ path, types, maxBytes }): [string, () => Promise<number>] => [
      `a chunked body to ${path} that never ends`,
      async () => {
        const chunk = `${(8_192).toString(16)}\r\n${"a".repeat(8_192)}\r\n`;
        const head = [`POST ${path} HTTP/1.1`, `Host: ${host()}`, `Content-Type: ${types[0]}`];
        const request = [...head, "Transfer-Encoding: chunked", "", chunk.repeat(maxBytes / 1_024)];
        return (await sendRaw(server.port, request.join("\r\n"))).status;
      },
    ]),
  ])("%s", expectCheap);
});

describe("pipelining and body framing", () => {
  const pipelined = (path: string) =>
    `GET ${path} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`.repeat(1_500);

  it.each<[string, () => string, number?]>([
    ["1,500 pipelined /healthz in one write (closed: status 0)", () => pipelined("/healthz")],
    ["1,500 pipelined pages in one write (closed: status 0)", () => pipelined("/")],
    ["a chunked body in 1-byte chunks (1 MiB of payload)", () => oneByteChunks(host()), 400],
  ])("%s", async (name, request, status) => {
    const { relativeCost, statuses } = await measure(
      name,
      async () => (await sendRaw(server.port, request())).status,
    );
    if (status) expect(statuses).toEqual([status]);
    expect(relativeCost).toBeLessThanOrEqual(MAX_RELATIVE_COST);
  });
});
