import { randomUUID } from "node:crypto";
import { z } from "zod";
import { getAccessToken, getRefreshedAccessToken } from "~/auth/guards.server";
import { FormRefusal } from "~/forms/index.server";
import { formatPath, type FormErrors } from "~/forms/parse";
import type { MessageKey } from "~/i18n/translate";
import { getConfig, type Config } from "~/lib/config.server";
import { createErrorResponse, getError } from "~/lib/errors";
import { createThrottledWarning, getRequestFields, logger } from "~/lib/logger.server";
import type { Call, CallInput, CallResult } from "./call";
import { readAnswer, UpstreamError } from "./read-response.server";
import { createExchange, encodeCall, sendWithRetries, startDeadline } from "./send-request.server";
import type { Exchange, RetryBudget } from "./send-request.server";

const ProblemDetailsSchema = z.object({
  title: z.string().optional().catch(undefined),
  detail: z.string().optional().catch(undefined),
  errors: z
    .array(z.object({ detail: z.string(), pointer: z.string().optional().catch(undefined) }))
    .optional(),
});

/**
 * RFC 9457 problem details, `errors` as in the RFC's example: each message the key `messages` gives
 * its pointer (`""` the problem as a whole), else the API's own words; `fields` renames its names.
 */
export function problemDetails(
  messages: Record<string, MessageKey> = {},
  { fields = {} }: { fields?: Record<string, string> } = {},
) {
  const keys = new Map(Object.entries(messages).map(([at, key]) => [getFieldName(at), key]));
  return (body: unknown): FormErrors | undefined => {
    const problem = ProblemDetailsSchema.safeParse(body);
    if (!problem.success) return undefined;
    const { title, detail, errors = [] } = problem.data;
    const message = keys.get("") ?? detail ?? title;
    if (!errors.length) return message ? { "": [message] } : undefined;
    const answer: FormErrors = {};
    for (const error of errors) {
      const name = getFieldName(error.pointer);
      (answer[fields[name] ?? name] ??= []).push(keys.get(name) ?? error.detail);
    }
    return answer;
  };
}

/** One message for the whole form whatever the answer says, as for a 409. */
export function formMessage(message: MessageKey) {
  return (): FormErrors => ({ "": [message] });
}

// A JSON pointer (RFC 6901), plain or a URI fragment, as the form names its field: "" is the form.
function getFieldName(pointer = "") {
  let path: string;
  try {
    path = pointer.startsWith("#") ? decodeURIComponent(pointer.slice(1)) : pointer;
  } catch {
    return "";
  }
  if (!path.startsWith("/")) return "";
  return formatPath(
    path
      .slice(1)
      .split("/")
      .map((key) => key.replaceAll("~1", "/").replaceAll("~0", "~"))
      .map((key) => (/^(0|[1-9]\d*)$/.test(key) ? Number(key) : key)),
  );
}

type ApiSettings = Pick<Config, "API_BASE_URL" | "API_TIMEOUT_MS" | "API_MAX_RESPONSE_BYTES"> & {
  retryBudget?: RetryBudget;
};

/** Makes a declared call for `request`: its parsed answer, else a thrown catalogue response. */
export async function callApi<C extends Call>(
  request: Request,
  call: C,
  input: CallInput<C>,
  settings: ApiSettings = getConfig(),
): Promise<CallResult<C>> {
  const { name } = call;
  const startedAt = performance.now();
  let trace: Exchange["trace"] = undefined;
  const report = (outcome: CallOutcomeEvent["outcome"]) => {
    const durationMs = performance.now() - startedAt;
    const event = { call: name, method: call.method, outcome, durationMs, trace };
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        logger.warn({ err: error }, "call outcome listener failed");
      }
    }
  };
  const fail = (error: UpstreamError) => {
    report(error.outcome);
    const fields = { ...getRequestFields(request), call: name, code: error.code };
    if (getError(error.code).status >= 500) warnFailed(name)({ ...fields, reason: error.message });
    return createErrorResponse(error.code);
  };
  if (!settings.API_BASE_URL)
    throw fail(new UpstreamError("UPSTREAM_UNAVAILABLE", "no API_BASE_URL"));
  const accessToken = call.auth === "visitor" ? await getAccessToken(request) : null;
  const { url, type, body } = encodeCall(call, input, settings.API_BASE_URL);
  const exchange = createExchange(request, call.method, url, body);
  if (type) exchange.headers["content-type"] = type;
  // One key per call, so that each of its retries carries the same.
  if (call.idempotencyKey) exchange.headers["idempotency-key"] = randomUUID();
  if (accessToken) exchange.headers.authorization = `Bearer ${accessToken}`;
  trace = exchange.trace;
  const deadline = startDeadline(request.signal, settings.API_TIMEOUT_MS);
  const replayable =
    call.retry !== false &&
    (["GET", "HEAD", "PUT"].includes(call.method) || call.idempotencyKey === true);
  const send = (sent: Exchange) =>
    sendWithRetries(sent, { replayable, deadline, budget: settings.retryBudget, onRetry: report });
  try {
    let response = await send(exchange);
    // A refused token is refreshed once; refused again, the visitor signs in again.
    if (accessToken && response.statusCode === 401) {
      response.destroy();
      const authorization = `Bearer ${await getRefreshedAccessToken(request, accessToken)}`;
      response = await send({ ...exchange, headers: { ...exchange.headers, authorization } });
      if (response.statusCode === 401)
        throw new UpstreamError("SIGN_IN_REQUIRED", "token refused", 401);
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
    if (error instanceof FormRefusal) report(`${error.status}`);
    throw error instanceof UpstreamError ? fail(error) : error;
  } finally {
    deadline.dispose();
  }
}

// A call failing for everyone is said once a minute while it lasts, and at once after it mended.
const failures = new Map<string, ReturnType<typeof createThrottledWarning>>();
function warnFailed(call: string) {
  let warn = failures.get(call);
  if (!warn) failures.set(call, (warn = createThrottledWarning("upstream call failed")));
  return warn;
}

export type CallOutcomeEvent = {
  call: string;
  method: string;
  outcome: UpstreamError["outcome"] | "ok" | "cancelled" | "retry" | "budget_exhausted";
  durationMs: number;
  trace?: Exchange["trace"];
};

const listeners = new Set<(event: CallOutcomeEvent) => void>();

/** Hears every call's outcome, and each retry made or refused; returns its unsubscribe. */
export function onCallOutcome(listener: (event: CallOutcomeEvent) => void) {
  const heard = (event: CallOutcomeEvent) => listener(event);
  listeners.add(heard);
  return () => void listeners.delete(heard);
}
