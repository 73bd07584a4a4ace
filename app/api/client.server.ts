import type { z } from "zod";
import { getConfig, type Config } from "~/lib/config.server";
import { createErrorResponse, getError, type ErrorCode } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { fetchWithRetries, MAX_RETRIES } from "./fetch-with-retries.server";
import { readJson } from "./read-json.server";
import { readUpstreamFormErrors } from "./problem-details.server";
import { UpstreamError } from "./upstream-error.server";
import { buildCallUrl, type Call, type CallInput, type CallResult, type QueryValue } from "./define-call";

type ApiSettings = Pick<
  Config,
  "API_BASE_URL" | "API_TIMEOUT_MS" | "API_MAX_RESPONSE_BYTES" | "API_HEALTH_PATH"
>;

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE"]);

/**
 * Makes a declared call on behalf of `request` and returns its parsed response. Every failure is
 * thrown as a catalogue response: bad input 400, an expected upstream 4xx as the call maps it,
 * no connection or 503 as 503, the deadline as 504, anything else the upstream sends as 502.
 * Redirects are never followed: an API that redirects is misconfigured.
 */
export async function callApi<C extends Call>(
  request: Request,
  call: C,
  input: CallInput<C>,
  settings: ApiSettings = getConfig(),
): Promise<CallResult<C>> {
  const fields = input as { params?: unknown; query?: unknown; body?: unknown };
  const params = parseInput(call.params, fields.params ?? {}) as Record<string, unknown> | undefined;
  const query = parseInput(call.query, fields.query ?? {}) as Record<string, QueryValue> | undefined;
  const body = parseInput(call.body, fields.body);
  if (!settings.API_BASE_URL)
    throw fail(request, call, new UpstreamError("UPSTREAM_UNAVAILABLE", "API_BASE_URL is not set"));
  const url = buildCallUrl(settings.API_BASE_URL, call.path, params, query);
  if (!url) throw createErrorResponse("BAD_REQUEST");

  const { contentType, encoded } = encodeBody(call, body);
  const headers = getForwardedHeaders(request);
  headers.set("accept", "application/json");
  if (contentType) headers.set("content-type", contentType);

  const deadline = AbortSignal.timeout(settings.API_TIMEOUT_MS);
  const signal = AbortSignal.any([request.signal, deadline]);
  try {
    const init = { method: call.method, headers, body: encoded, signal, redirect: "manual" } as const;
    const response = await fetchWithRetries(url, init, IDEMPOTENT.has(call.method) ? MAX_RETRIES : 0);
    if (!response.ok) {
      // An answer the call shows on its form (define-call.ts `formErrors`) goes back to the action.
      const formErrors = await readUpstreamFormErrors(call, response.status, () =>
        readJson(response.clone(), settings.API_MAX_RESPONSE_BYTES, signal),
      );
      if (formErrors) throw formErrors;
      await response.body?.cancel();
      throw new UpstreamError(
        getCodeForStatus(call, response.status),
        `upstream answered ${response.status}`,
      );
    }
    const json = await readJson(response, settings.API_MAX_RESPONSE_BYTES, signal);
    const result = call.response.safeParse(json);
    if (!result.success) {
      const paths = result.error.issues.map((issue) => issue.path.join(".") || "(root)");
      throw new UpstreamError(
        "UPSTREAM_BAD_RESPONSE",
        `response does not match its schema at ${paths.join(", ")}`,
      );
    }
    return result.data as CallResult<C>;
  } catch (error) {
    if (request.signal.aborted) throw request.signal.reason;
    if (deadline.aborted)
      throw fail(request, call, new UpstreamError("UPSTREAM_TIMEOUT", "no answer in time"));
    if (error instanceof UpstreamError) throw fail(request, call, error);
    throw error;
  }
}

/**
 * Readiness of the upstream: null when it answers API_HEALTH_PATH with a status below 500
 * within API_TIMEOUT_MS, else the catalogue code saying why not.
 */
export async function checkUpstream(request: Request, settings: ApiSettings = getConfig()) {
  const deadline = AbortSignal.timeout(settings.API_TIMEOUT_MS);
  try {
    const response = await fetch(`${settings.API_BASE_URL}${settings.API_HEALTH_PATH}`, {
      headers: getForwardedHeaders(request),
      signal: AbortSignal.any([request.signal, deadline]),
      redirect: "manual",
    });
    await response.body?.cancel();
    return response.status < 500 ? null : "UPSTREAM_UNAVAILABLE";
  } catch (error) {
    if (request.signal.aborted) throw request.signal.reason;
    if (deadline.aborted) return "UPSTREAM_TIMEOUT";
    logger.warn({ err: error, requestId: request.headers.get("x-request-id") }, "upstream not ready");
    return "UPSTREAM_UNAVAILABLE";
  }
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

function getCodeForStatus(call: Call, status: number): ErrorCode {
  if (status === 503) return "UPSTREAM_UNAVAILABLE";
  const expected = status >= 400 && status < 500 ? call.errors?.[status] : undefined;
  return expected ?? "UPSTREAM_BAD_RESPONSE";
}

function fail(request: Request, call: Call, error: UpstreamError) {
  if (getError(error.code).status >= 500) {
    logger.warn(
      {
        requestId: request.headers.get("x-request-id"),
        call: `${call.method} ${call.path}`,
        code: error.code,
      },
      `upstream call failed: ${error.message}`,
    );
  }
  return createErrorResponse(error.code);
}

function getForwardedHeaders(request: Request) {
  const requestId = request.headers.get("x-request-id");
  return new Headers(requestId ? { "x-request-id": requestId } : {});
}
