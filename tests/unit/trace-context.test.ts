import { describe, expect, it } from "vitest";
import {
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
  readTracestate,
  startChildSpan,
} from "~/lib/trace-context.server";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

describe("parseTraceparent", () => {
  it("reads the caller's trace, span and flags", () => {
    const read = parseTraceparent(TRACEPARENT);
    expect(read).toEqual({ traceId: TRACE_ID, parentId: PARENT_ID, flags: "01" });
  });

  it.each([
    ["fd", "01"],
    ["ff", "01"],
    ["03", "01"],
    ["fe", "00"],
    ["02", "00"],
  ])("keeps only the sampled bit of the flags %s", (flags, kept) => {
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-${flags}`)?.flags).toBe(kept);
  });

  it("reads the first four fields of a later version", () => {
    expect(parseTraceparent(`cc-${TRACE_ID}-${PARENT_ID}-09-what-comes-next`)?.traceId).toBe(
      TRACE_ID,
    );
  });

  it.each([
    undefined,
    "",
    `ff-${TRACE_ID}-${PARENT_ID}-01`,
    `00-${TRACE_ID}-${PARENT_ID}-01-x`,
    `00-${"0".repeat(32)}-${PARENT_ID}-01`,
    `00-${TRACE_ID}-${"0".repeat(16)}-01`,
    `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
    `00-${TRACE_ID}-${PARENT_ID}-1`,
    `00_${TRACE_ID}_${PARENT_ID}_01`,
    ` 00-${TRACE_ID}-${PARENT_ID}-01`,
  ])("refuses %j", (header) => {
    expect(parseTraceparent(header)).toBeNull();
  });
});

describe("readTracestate", () => {
  it("passes on a printable list of a sane length, and nothing else", () => {
    expect(readTracestate("congo=t61rcWkgMzE")).toBe("congo=t61rcWkgMzE");
    expect(readTracestate("a=b\u0000")).toBeUndefined();
    expect(readTracestate("a=" + "b".repeat(600))).toBeUndefined();
    expect(readTracestate(undefined)).toBeUndefined();
  });

  it("keeps the first 32 list members", () => {
    const members = Array.from({ length: 33 }, (_, i) => `k${i}=v${i}`);
    expect(readTracestate(members.join(","))).toBe(members.slice(0, 32).join(","));
    expect(readTracestate(members.slice(0, 32).join(","))).toBe(members.slice(0, 32).join(","));
  });

  it("skips empty members and the spaces around members", () => {
    expect(readTracestate(" a=1 ,, ,\tb@tenant=x y")).toBe("a=1,b@tenant=x y");
  });

  it.each([
    ["a member without a value", "a=1,b"],
    ["an upper-case key", "Congo=1"],
    ["a key starting with a digit and no tenant", "1a=1"],
    ["a value with a comma inside quotes", 'a="1,2"x'],
    ["a value with an equals sign", "a=1=2"],
    ["a control character in a value", "a=1\u0001"],
    ["a repeated key", "a=1,b=2,a=3"],
    ["only commas", ",,,"],
  ])("drops a tracestate with %s", (_case, header) => {
    expect(readTracestate(header)).toBeUndefined();
  });
});

describe("startChildSpan", () => {
  it("is a new span in the request's trace, with its flags and tracestate", () => {
    const headers = { traceparent: TRACEPARENT, tracestate: "a=b" };
    const child = startChildSpan(new Request("http://localhost/", { headers }))!;
    expect(child.parentSpanId).toBe(PARENT_ID);
    expect(child.span).toMatchObject({ traceId: TRACE_ID, flags: "01", state: "a=b" });
    expect(child.span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(child.span.spanId).not.toBe(PARENT_ID);
    expect(parseTraceparent(formatTraceparent(child.span))?.parentId).toBe(child.span.spanId);
  });

  it("is nothing for a request that carries no trace", () => {
    expect(startChildSpan(new Request("http://localhost/"))).toBeUndefined();
  });

  it("makes ids of the standard's length", () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
  });

  it("never repeats an id, across refills of its random pool", () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => (i % 2 ? newTraceId() : newSpanId()));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
