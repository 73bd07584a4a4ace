import { randomUUID } from "node:crypto";
import diagnosticsChannel from "node:diagnostics_channel";
import { getAccessToken, getRefreshedAccessToken } from "~/auth/guards.server";
import { getConfig, type Config } from "~/lib/config.server";
import { createErrorResponse, getError } from "~/lib/errors";
import { getRequestFields, logger } from "~/lib/logger.server";
import { encodeCall, type Call, type CallInput, type CallResult } from "./define-call.server";
import { readAnswer, UpstreamError, UpstreamFormErrors } from "./read-response.server";
import { createExchange, sendWithRetries, type Exchange, type RetryBudget } from "./send-request.server";

export { defineCall, formMessage, problemDetails } from "./define-call.server";
export { UpstreamFormErrors } from "./read-response.server";

type ApiSettings = Pick<Config, "API_BASE_URL" | "API_TIMEOUT_MS" | "API_MAX_RESPONSE_BYTES"> & {
  retryBudget?: RetryBudget;
};

/** Makes a declared call for `request`: its parsed answer, else a thrown catalogue response (docs/calls.md). */
export async function callApi<C extends Call>(
  request: Request,
  call: C,
  input: CallInput<C>,
  settings: ApiSettings = getConfig(),
): Promise<CallResult<C>> {
  const name = call.name ?? `${call.method} ${call.path}`;
  const startedAt = performance.now();
  let trace: Exchange["trace"] = undefined;
  const report = (outcome: CallOutcomeEvent["outcome"]) => {
    const durationMs = performance.now() - startedAt;
    if (outcomes.hasSubscribers)
      outcomes.publish({ call: name, method: call.method, outcome, durationMs, trace });
  };
  const fail = (error: UpstreamError) => {
    report(error.outcome);
    const fields = { ...getRequestFields(request), call: name, code: error.code };
    if (getError(error.code).status >= 500) logger.warn(fields, `upstream call failed: ${error.message}`);
    return createErrorResponse(error.code);
  };
  if (!settings.API_BASE_URL) throw fail(new UpstreamError("UPSTREAM_UNAVAILABLE", "no API_BASE_URL"));
  const accessToken = call.auth === "visitor" ? await getAccessToken(request) : null;
  const { url, contentType, body } = encodeCall(call, input, settings.API_BASE_URL);
  const exchange = createExchange(request, call.method, url, body);
  if (contentType) exchange.headers["content-type"] = contentType;
  // One key per call, so that each of its retries carries the same.
  if (call.idempotencyKey) exchange.headers["idempotency-key"] = randomUUID();
  if (accessToken) exchange.headers.authorization = `Bearer ${accessToken}`;
  trace = exchange.trace;
  const deadline = startDeadline(request.signal, settings.API_TIMEOUT_MS);
  const replayable = ["GET", "HEAD", "PUT"].includes(call.method) || call.idempotencyKey === true;
  const send = (sent: Exchange) =>
    sendWithRetries(sent, { replayable, deadline, budget: settings.retryBudget, onRetry: report });
  try {
    let response = await send(exchange);
    // A refused token is refreshed once; refused again, the visitor signs in again.
    if (accessToken && response.statusCode === 401) {
      response.destroy();
      const authorization = `Bearer ${await getRefreshedAccessToken(request, accessToken)}`;
      response = await send({ ...exchange, headers: { ...exchange.headers, authorization } });
      if (response.statusCode === 401) throw new UpstreamError("SIGN_IN_REQUIRED", "token refused", 401);
    }
    const answer = await readAnswer(call, response, settings.API_MAX_RESPONSE_BYTES);
    report("ok");
    return answer;
  } catch (error) {
    if (request.signal.aborted) {
      report("cancelled");
      throw request.signal.reason;
    }
    if (deadline.passed) throw fail(new UpstreamError("UPSTREAM_TIMEOUT", "no answer in time"));
    if (error instanceof UpstreamFormErrors) report(`${error.status}`);
    throw error instanceof UpstreamError ? fail(error) : error;
  } finally {
    deadline.dispose();
  }
}

const DEADLINE_PASSED = new Error("the call's deadline passed");
const ENDED_PER_TURN = 4;
const expired: AbortController[] = [];

// Calls started in one turn expire in one, and each ending renders a page: a few per turn.
function endExpiredCalls() {
  for (const controller of expired.splice(0, ENDED_PER_TURN)) controller.abort(DEADLINE_PASSED);
  if (expired.length > 0) setImmediate(endExpiredCalls);
}

/** Aborted when the visitor leaves or `timeoutMs` passes; cheaper than `AbortSignal.any` and `.timeout`. */
export function startDeadline(visitor: AbortSignal | null, timeoutMs: number) {
  const controller = new AbortController();
  const leave = () => controller.abort(visitor?.reason);
  if (visitor?.aborted) leave();
  else visitor?.addEventListener("abort", leave, { once: true });
  const timer = setTimeout(() => expired.push(controller) === 1 && setImmediate(endExpiredCalls), timeoutMs);
  return {
    signal: controller.signal,
    endsAt: performance.now() + timeoutMs,
    get passed() {
      return controller.signal.reason === DEADLINE_PASSED;
    },
    dispose() {
      clearTimeout(timer);
      visitor?.removeEventListener("abort", leave);
    },
  };
}

export type CallOutcomeEvent = {
  call: string;
  method: string;
  outcome: UpstreamError["outcome"] | "ok" | "cancelled" | "retry" | "budget_exhausted";
  durationMs: number;
  trace?: Exchange["trace"];
};

// A channel, not a list here: the server and the Remix build each bundle a copy of this module.
const outcomes = diagnosticsChannel.channel("web-app:call-outcome");

/** Hears every call's outcome, and each retry made or refused; returns its unsubscribe. */
export function onCallOutcome(listener: (event: CallOutcomeEvent) => void) {
  const heard = (message: unknown) => {
    try {
      listener(message as CallOutcomeEvent);
    } catch (error) {
      logger.warn({ err: error }, "call outcome listener failed");
    }
  };
  outcomes.subscribe(heard);
  return () => void outcomes.unsubscribe(heard);
}
