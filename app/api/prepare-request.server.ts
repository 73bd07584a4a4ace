import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { createErrorResponse } from "~/lib/errors";
import { formatTraceparent, startChildSpan } from "~/lib/trace-context.server";
import { buildCallUrl, type Call, type CallInput, type QueryValue } from "./define-call";
import { ACCEPTED_ENCODINGS } from "./read-response.server";
import type { Exchange } from "./send-request.server";

/**
 * The request a call sends for `input`: its URL under `baseUrl`, its headers and encoded body,
 * and the visitor's `accessToken` for a call made on their behalf.
 * Input that does not match the call's schemas, or a path value that would leave its segment,
 * is refused with the catalogue's 400 before anything is sent.
 */
export function prepareRequest<C extends Call>(
  request: Request,
  call: C,
  input: CallInput<C>,
  baseUrl: string,
  accessToken: string | null = null,
): Exchange {
  const fields = input as { params?: unknown; query?: unknown; body?: unknown };
  const params = parseInput(call.params, fields.params ?? {}) as Record<string, unknown> | undefined;
  const query = parseInput(call.query, fields.query ?? {}) as Record<string, QueryValue> | undefined;
  const url = buildCallUrl(baseUrl, call.path, params, query);
  if (!url) throw createErrorResponse("BAD_REQUEST");
  const { contentType, encoded } = encodeBody(call, parseInput(call.body, fields.body));
  const trace = startChildSpan(request);
  const headers = getForwardedHeaders(request, trace);
  headers.accept = "application/json";
  headers["accept-encoding"] = ACCEPTED_ENCODINGS;
  if (contentType) headers["content-type"] = contentType;
  // One key per call, so every retry of it carries the same.
  if (call.idempotencyKey) headers["idempotency-key"] = randomUUID();
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  return { url, method: call.method, headers, body: encoded, trace };
}

/**
 * What reaches the API of the visitor's request: its id, and its trace carried on by `trace`, the
 * call's own span (W3C `traceparent` and `tracestate`). No other header, cookie or credential.
 */
export function getForwardedHeaders(request: Request, trace = startChildSpan(request)) {
  const headers: Record<string, string> = {};
  const requestId = request.headers.get("x-request-id");
  if (requestId) headers["x-request-id"] = requestId;
  if (trace) headers.traceparent = formatTraceparent(trace.span);
  if (trace?.span.state) headers.tracestate = trace.span.state;
  return headers;
}

function parseInput(schema: z.ZodType | undefined, value: unknown) {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw createErrorResponse("BAD_REQUEST");
  return result.data;
}

function encodeBody(call: Call, body: unknown) {
  if (!call.body) return {};
  if (call.bodyType === "form") {
    const encoded = new URLSearchParams(body as Record<string, string>).toString();
    return { contentType: "application/x-www-form-urlencoded", encoded };
  }
  return { contentType: "application/json", encoded: JSON.stringify(body) };
}
