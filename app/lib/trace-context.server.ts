import { randomFillSync } from "node:crypto";

/** A span in a W3C Trace Context (https://www.w3.org/TR/trace-context/); flags `01` when recorded. */
export type TraceContext = { traceId: string; spanId: string; flags: string; state?: string };

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;
// The one flag this version defines; the others are zeroed when passed on.
const SAMPLED = 0x01;
const MAX_TRACESTATE_LENGTH = 512;
const MAX_TRACESTATE_MEMBERS = 32;
const TRACESTATE_MEMBER =
  /^(?:[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13}|[a-z][a-z0-9_\-*/]{0,255})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

export function parseTraceparent(header: string | null | undefined) {
  const match = header ? TRACEPARENT.exec(header) : null;
  if (!match) return null;
  const [, version, traceId, parentId, flags, rest] = match as unknown as string[];
  // Version ff is forbidden; version 00 has exactly four fields; a later version may add fields.
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (ALL_ZERO.test(traceId!) || ALL_ZERO.test(parentId!)) return null;
  const sampled = Number.parseInt(flags!, 16) & SAMPLED;
  return { traceId: traceId!, parentId: parentId!, flags: sampled ? "01" : "00" };
}

/** A `tracestate` worth passing on (its first 32 members), or undefined when any member is bad or repeated. */
export function readTracestate(header: string | null | undefined) {
  if (!header || header.length > MAX_TRACESTATE_LENGTH) return undefined;
  const members = header
    .split(",")
    .map((member) => member.trim())
    .filter(Boolean);
  if (members.length === 0 || !members.every((member) => TRACESTATE_MEMBER.test(member)))
    return undefined;
  const keys = members.map((member) => member.slice(0, member.indexOf("=")));
  if (new Set(keys).size !== keys.length) return undefined;
  return members.slice(0, MAX_TRACESTATE_MEMBERS).join(",");
}

export function formatTraceparent({ traceId, spanId, flags }: TraceContext) {
  return `00-${traceId}-${spanId}-${flags}`;
}

export const newTraceId = () => randomHex(16);
export const newSpanId = () => randomHex(8);

// Random bytes drawn a few kilobytes at a time: one call for each id costs several times more.
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomHex(length: number) {
  if (used + length > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += length;
  return pool.toString("hex", used - length, used);
}

export function getTraceId(request: Request) {
  return parseTraceparent(request.headers.get("traceparent"))?.traceId;
}

/** A span for a call made for `request`, the child of its span; undefined when it has no trace. */
export function startChildSpan(request: Request) {
  const parent = parseTraceparent(request.headers.get("traceparent"));
  if (!parent) return undefined;
  const state = readTracestate(request.headers.get("tracestate"));
  const span: TraceContext = {
    traceId: parent.traceId,
    spanId: newSpanId(),
    flags: parent.flags,
    state,
  };
  return { span, parentSpanId: parent.parentId };
}
