import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { getEnglishError } from "../support/shell";
import { getHeading } from "../support/html";
import { readMainThreadCpuMs } from "../support/process-stats";
import { LOOP_DELAY_OPTIONS } from "../support/request-cost";
import { startSuiteServer } from "../support/server";
import {
  findLargestChunk,
  getRaw,
  MAX_MEMORY_GROWTH_MB,
  measureUnderAttack,
  openNonReaders,
} from "../support/slow-clients";

// The browser build as `npm run build` leaves it: each text file with its stored .br and .gz.
const chunk = findLargestChunk();
const stored = (extension = "") => readFileSync(chunk.file + extension);

const server = startSuiteServer({ NODE_OPTIONS: LOOP_DELAY_OPTIONS });
const get = (headers: Record<string, string> = {}, method?: string) =>
  getRaw(server.url + chunk.url, headers, method);

describe("the browser build, compressed once at build time", () => {
  it.each([
    ["br", "gzip, deflate, br, zstd", ".br"],
    ["gzip", "gzip", ".gz"],
    ["gzip", "br;q=0, gzip", ".gz"],
    ["br", "*", ".br"],
  ])("sends the stored %s file for Accept-Encoding: %s", async (encoding, accept, extension) => {
    const response = await get({ "accept-encoding": accept });
    expect(response.status).toBe(200);
    expect(response.headers["content-encoding"]).toBe(encoding);
    expect(response.headers["content-type"]).toMatch(/^application\/javascript/);
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(response.headers["cache-control"]).toMatch(/immutable/);
    expect(Number(response.headers["content-length"])).toBe(stored(extension).length);
    expect(response.body.equals(stored(extension))).toBe(true);
  });

  it.each([["deflate"], ["identity"], [""]])(
    "sends the file as it is for Accept-Encoding: %j, compressing nothing",
    async (accept) => {
      const response = await get(accept ? { "accept-encoding": accept } : {});
      expect(response.headers["content-encoding"]).toBeUndefined();
      expect(response.headers.vary).toMatch(/accept-encoding/i);
      expect(response.body.equals(stored())).toBe(true);
    },
  );

  it("answers HEAD with the stored file's length and no body", async () => {
    const response = await get({ "accept-encoding": "gzip" }, "HEAD");
    expect(Number(response.headers["content-length"])).toBe(stored(".gz").length);
    expect(response.body.length).toBe(0);
  });

  it("tags each encoding apart and answers a matching If-None-Match with 304", async () => {
    const gzip = await get({ "accept-encoding": "gzip" });
    const brotli = await get({ "accept-encoding": "br" });
    expect(gzip.headers.etag).not.toBe(brotli.headers.etag);
    const revalidated = await get({
      "accept-encoding": "gzip",
      "if-none-match": gzip.headers.etag!,
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
  });

  it("answers a Range from the encoding sent, and refuses one past its end with the catalogue page", async () => {
    const part = await get({ "accept-encoding": "gzip", range: "bytes=0-99" });
    expect(part.status).toBe(206);
    expect(part.headers["content-range"]).toBe(`bytes 0-99/${stored(".gz").length}`);
    expect(part.body.equals(stored(".gz").subarray(0, 100))).toBe(true);

    const refused = await get({
      "accept-encoding": "gzip",
      range: `bytes=${stored(".gz").length}-`,
    });
    expect(refused.status).toBe(416);
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(getHeading(refused.body.toString())).toBe(
      getEnglishError("RANGE_NOT_SATISFIABLE").title,
    );
  });

  it("does not serve the stored files under their own names", async () => {
    for (const extension of [".br", ".gz"])
      expect((await getRaw(`${server.url}${chunk.url}${extension}`)).status).toBe(404);
  });

  it("spends less CPU on 200 gzip requests for the largest chunk than compressing it 200 times", async () => {
    const compressMs = Math.min(
      ...Array.from({ length: 5 }, () => {
        const start = performance.now();
        gzipSync(stored());
        return performance.now() - start;
      }),
    );
    const before = readMainThreadCpuMs(server.child.pid!);
    for (let i = 0; i < 20; i++) {
      await Promise.all(Array.from({ length: 10 }, () => get({ "accept-encoding": "gzip" })));
    }
    const cpuMs = readMainThreadCpuMs(server.child.pid!) - before;
    console.log(
      `200 gzip requests for ${chunk.name}: ${Math.round(cpuMs)} ms of the main thread's CPU;` +
        ` compressing it once takes ${compressMs.toFixed(1)} ms`,
    );
    expect(cpuMs).toBeLessThan(200 * compressMs);
  });
});

describe("clients that pipeline requests for the largest chunk and never read", () => {
  const pipelined = (count: number, accept: string) =>
    `GET ${chunk.url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: ${accept}\r\n\r\n`.repeat(
      count,
    );

  it.each([
    ["100 connections × 16 gzip requests (the reported attack)", 100, pipelined(16, "gzip")],
    ["100 connections × 16 requests, no compression", 100, pipelined(16, "identity")],
    ["100 connections × 16 brotli requests", 100, pipelined(16, "br")],
    ["1,600 connections × 1 gzip request", 1_600, pipelined(1, "gzip")],
  ])("%s: memory stays bounded and returns", async (name, connections, request) => {
    const { idle, peak, after } = await measureUnderAttack(server, name, () =>
      openNonReaders(server.port, connections, request),
    );
    expect(peak - idle).toBeLessThan(MAX_MEMORY_GROWTH_MB);
    expect(after - idle).toBeLessThan(MAX_MEMORY_GROWTH_MB);
  });
});
