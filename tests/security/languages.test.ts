import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMainThreadCpuMs } from "../support/process-stats";
import { sendRaw } from "../support/raw-http";
import { startSuiteServer } from "../support/server";

// What choosing a language costs the loop when the request is hostile (headers as large as Node
// takes, a form as large as the server takes), against the same request of the same size made
// harmless in the same run: main-thread CPU time is compared, so a busy machine slows both alike.
const ROUNDS = 3;
const REQUESTS_PER_ROUND = 10;
// A parse that grew with the header's ranges would cost many times the page itself; a warm page
// varies by a half from batch to batch.
const MAX_RATIO = 3;
const HEADER_BYTES = 15_000;
const BODY_BYTES = 1_000_000;

const server = startSuiteServer();
const figures: string[] = [];
// The first pages compile the code every later one runs.
beforeAll(async () => {
  for (let i = 0; i < 3; i++) await measure(getPage("Accept-Language: ar"));
});
afterAll(() => console.log(`hostile / harmless CPU, ${ROUNDS} rounds:\n${figures.join("\n")}`));

const fill = (unit: string, size: number) => unit.repeat(Math.floor(size / unit.length));

function getPage(header: string) {
  const host = `127.0.0.1:${server.port}`;
  const request = `GET / HTTP/1.1\r\nHost: ${host}\r\n${header}\r\nConnection: close\r\n\r\n`;
  return async () => (await sendRaw(server.port, request)).status;
}

function postLanguage(body: string) {
  return async () => {
    const response = await fetch(`${server.url}/preferences/language`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  };
}

type Send = () => Promise<number>;

/** The main thread's CPU time for a batch of `send`, and the statuses it got. */
async function measure(send: Send) {
  const statuses = new Set<number>();
  const before = readMainThreadCpuMs(server.child.pid!);
  for (let i = 0; i < REQUESTS_PER_ROUND; i++) statuses.add(await send());
  return { cpu: readMainThreadCpuMs(server.child.pid!) - before, statuses };
}

/** The hostile request's CPU over its harmless twin's, rounds interleaved, each side's least. */
async function compare(name: string, hostile: Send, harmless: Send) {
  await measure(harmless);
  let [hostileCpu, harmlessCpu] = [Infinity, Infinity];
  const statuses = new Set<number>();
  for (let round = 0; round < ROUNDS; round++) {
    const attack = await measure(hostile);
    const calibration = await measure(harmless);
    hostileCpu = Math.min(hostileCpu, attack.cpu);
    harmlessCpu = Math.min(harmlessCpu, calibration.cpu);
    for (const status of [...attack.statuses, ...calibration.statuses]) statuses.add(status);
  }
  const ratio = hostileCpu / harmlessCpu;
  figures.push(`  ${name.padEnd(60)} ${ratio.toFixed(2)}  ${[...statuses].join(", ")}`);
  return { ratio, statuses: [...statuses] };
}

/** A header as long as `header` that no part of the app reads. */
const paddingFor = (header: string) => `X-Padding: ${"a".repeat(header.length - 11)}`;

describe("a page asked for with a hostile Accept-Language or locale cookie", () => {
  it.each(
    [
      ["Accept-Language of 3,000 well-formed ranges", fill("xx-yy;q=0.5, ", HEADER_BYTES)],
      ["Accept-Language of 3,000 malformed ranges", fill("x!y;q=z, ", HEADER_BYTES)],
      ["Accept-Language of one range of 15 KB", `a${fill("-abcdefgh", HEADER_BYTES)}`],
      ["Accept-Language of 15 KB of commas", fill(",", HEADER_BYTES)],
      ["Accept-Language of 15 KB of blanks and semicolons", fill(" ;", HEADER_BYTES)],
      [
        "Accept-Language of ranges of 32 one-letter subtags",
        fill(`${"a-".repeat(31)}a, `, HEADER_BYTES),
      ],
      ["Accept-Language of a q-value of 15 KB", `ar;q=0.${fill("9", HEADER_BYTES)}`],
    ]
      .map(([name, value]) => [name!, `Accept-Language: ${value}`])
      .concat([
        ["a forged locale cookie of 15 KB", `Cookie: locale=${fill("YXI.", HEADER_BYTES)}`],
        ["1,500 locale cookies", `Cookie: ${fill("locale=ImFyIg%3D%3D.x; ", HEADER_BYTES)}`],
      ]),
  )("%s", async (name, header) => {
    const { ratio, statuses } = await compare(name, getPage(header), getPage(paddingFor(header)));
    expect(statuses).toEqual([200]);
    expect(ratio).toBeLessThan(MAX_RATIO);
  });
});

describe("the language form posted as large as the server takes", () => {
  it.each([
    ["a redirectTo of 1 MB", `locale=ar&redirectTo=/${fill("%3C%22", BODY_BYTES)}`, 303],
    ["a locale of 1 MB", `locale=${fill("ar", BODY_BYTES)}&redirectTo=/`, 400],
  ])("%s", async (name, body, status) => {
    // The same answer to a harmless post of the same size: a 303, or the form refused.
    const locale = status === 303 ? "ar" : "fr";
    const harmless = `locale=${locale}&redirectTo=/&ignored=${"a".repeat(body.length - 31)}`;
    const { ratio, statuses } = await compare(name, postLanguage(body), postLanguage(harmless));
    expect(statuses).toEqual([status]);
    expect(ratio).toBeLessThan(MAX_RATIO);
  });
});
