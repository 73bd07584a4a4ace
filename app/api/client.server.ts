import { getAccessToken, getRefreshedAccessToken } from "~/auth/guards.server";
import { getConfig, type Config } from "~/lib/config.server";
import { createErrorResponse, getError, type ErrorCode } from "~/lib/errors";
import { getRequestFields, logger } from "~/lib/logger.server";
import { createThrottledWarning } from "~/lib/logger.server";
import { getCallName, reportOutcome, type CallAttempt } from "./call-outcomes.server";
import { startCallDeadline } from "./call-deadline.server";
import type { Call, CallInput, CallResult } from "./define-call";
import { getForwardedHeaders, prepareRequest } from "./prepare-request.server";
import { readUpstreamFormErrors } from "./problem-details.server";
import { readJson } from "./read-response.server";
import { createRetryBudget, REPLAYABLE_METHODS, type RetryBudget } from "./retry-policy.server";
import { sendRequest, type Exchange } from "./send-request.server";
import { sendWithRetries } from "./send-with-retries.server";
import { getFailureForStatus, UpstreamError } from "./upstream-error.server";

type ApiSettings = Pick<
  Config,
  "API_BASE_URL" | "API_TIMEOUT_MS" | "API_MAX_RESPONSE_BYTES" | "API_HEALTH_PATH"
> & { retryBudget?: RetryBudget };

const retryBudget = createRetryBudget();

/**
 * Makes a declared call on behalf of `request` and returns its parsed response. Every failure is
 * thrown as a catalogue response: bad input 400, an expected upstream 4xx as the call maps it,
 * no connection, 429 or 503 as 503, the deadline as 504, anything else the upstream sends as 502.
 * Redirects are never followed: an API that redirects is misconfigured. README "Upstream
 * failures" has the whole table, retries included.
 */
export async function callApi<C extends Call>(
  request: Request,
  call: C,
  input: CallInput<C>,
  settings: ApiSettings = getConfig(),
): Promise<CallResult<C>> {
  const startedAt = performance.now();
  if (!settings.API_BASE_URL) {
    const error = new UpstreamError("UPSTREAM_UNAVAILABLE", "API_BASE_URL is not set", { sent: false });
    throw fail(request, { call, startedAt }, error);
  }
  const accessToken = call.auth === "visitor" ? await getAccessToken(request) : null;
  const exchange = prepareRequest(request, call, input, settings.API_BASE_URL, accessToken);
  const attempt: CallAttempt = { call, startedAt, trace: exchange.trace };
  const deadline = startCallDeadline(request.signal, settings.API_TIMEOUT_MS);
  const send = (sent: Exchange) =>
    sendWithRetries(sent, {
      replayable: REPLAYABLE_METHODS.has(call.method) || call.idempotencyKey === true,
      signal: deadline.signal,
      deadlineAt: deadline.endsAt,
      budget: settings.retryBudget ?? retryBudget,
      onRetry: (outcome) => reportOutcome(attempt, outcome),
    });
  try {
    let response = await send(exchange);
    // The visitor's token was refused: refreshed once and sent again, else they sign in again.
    if (accessToken && response.statusCode === 401) {
      response.destroy();
      const refreshed = await getRefreshedAccessToken(request, accessToken);
      response = await send({
        ...exchange,
        headers: { ...exchange.headers, authorization: `Bearer ${refreshed}` },
      });
      if (response.statusCode === 401) {
        response.destroy();
        reportOutcome(attempt, "401");
        throw createErrorResponse("SIGN_IN_REQUIRED");
      }
    }
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      // An answer the call shows on its form (define-call.ts `formErrors`) goes back to the action.
      const formErrors = await readUpstreamFormErrors(call, status, () =>
        readJson(response, settings.API_MAX_RESPONSE_BYTES),
      );
      response.destroy();
      if (formErrors) {
        reportOutcome(attempt, `${status}`);
        throw formErrors;
      }
      throw getFailureForStatus(call, status);
    }
    const json = await readJson(response, settings.API_MAX_RESPONSE_BYTES);
    const result = call.response.safeParse(json);
    if (!result.success) {
      const paths = result.error.issues.map((issue) => issue.path.join(".") || "(root)");
      throw new UpstreamError(
        "UPSTREAM_BAD_RESPONSE",
        `response does not match its schema at ${paths.join(", ")}`,
      );
    }
    reportOutcome(attempt, "ok");
    return result.data as CallResult<C>;
  } catch (error) {
    if (request.signal.aborted) {
      reportOutcome(attempt, "cancelled");
      throw request.signal.reason;
    }
    const failure = deadline.passed ? new UpstreamError("UPSTREAM_TIMEOUT", "no answer in time") : error;
    if (failure instanceof UpstreamError) throw fail(request, attempt, failure);
    throw failure;
  } finally {
    deadline.dispose();
  }
}

/**
 * Readiness of the upstream: null when it answers API_HEALTH_PATH with a status below 500
 * within API_TIMEOUT_MS, else the catalogue code saying why not. One check is in flight at a time:
 * the requests that ask meanwhile all wait on it, each free to leave.
 */
export function checkUpstream(request: Request, settings: ApiSettings = getConfig()) {
  const url = `${settings.API_BASE_URL}${settings.API_HEALTH_PATH}`;
  let check = readinessChecks.get(url);
  if (!check) {
    check = probeUpstream(request, new URL(url), settings.API_TIMEOUT_MS);
    readinessChecks.set(url, check);
    void check.finally(() => readinessChecks.delete(url));
  }
  return untilLeft(request.signal, check);
}

const readinessChecks = new Map<string, Promise<ErrorCode | null>>();
// The check is everyone's: the request that started it leaving does not end it.
const NOBODY_LEAVES = new AbortController().signal;
const warnNotReady = createThrottledWarning("upstream not ready");

async function probeUpstream(request: Request, url: URL, timeoutMs: number): Promise<ErrorCode | null> {
  const deadline = startCallDeadline(NOBODY_LEAVES, timeoutMs);
  try {
    const response = await sendRequest(
      { url, method: "GET", headers: getForwardedHeaders(request) },
      deadline.signal,
    );
    response.destroy();
    if ((response.statusCode ?? 0) < 500) {
      warnNotReady.reset();
      return null;
    }
    return "UPSTREAM_UNAVAILABLE";
  } catch (error) {
    if (deadline.passed) return "UPSTREAM_TIMEOUT";
    warnNotReady({ err: error, ...getRequestFields(request) });
    return "UPSTREAM_UNAVAILABLE";
  } finally {
    deadline.dispose();
  }
}

/** `result`, unless the visitor leaves first: then the visitor's reason. */
function untilLeft<T>(visitor: AbortSignal, result: Promise<T>) {
  if (visitor.aborted) return Promise.reject(visitor.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const leave = () => reject(visitor.reason as Error);
    visitor.addEventListener("abort", leave, { once: true });
    result.then(resolve, reject).finally(() => visitor.removeEventListener("abort", leave));
  });
}

function fail(request: Request, attempt: CallAttempt, error: UpstreamError) {
  reportOutcome(attempt, error.outcome);
  if (getError(error.code).status >= 500) {
    logger.warn(
      { ...getRequestFields(request), call: getCallName(attempt.call), code: error.code },
      `upstream call failed: ${error.message}`,
    );
  }
  return createErrorResponse(error.code);
}

export { defineCall } from "./define-call";
export { formMessage, problemDetails } from "./problem-details.server";
