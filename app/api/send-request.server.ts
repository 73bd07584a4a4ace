import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import { createErrorResponse } from "~/lib/errors";
import { formatTraceparent, startChildSpan } from "~/lib/trace-context.server";
import type { Call, Check } from "./call";
import { badAnswer, UpstreamError } from "./read-response.server";

export type Exchange = {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  trace?: ReturnType<typeof startChildSpan>;
};

/** A request to the API carrying, of the visitor's, only its id and trace (a child span). */
export function createExchange(
  request: Request,
  method: string,
  url: URL,
  body?: string,
): Exchange {
  const trace = startChildSpan(request);
  const headers: Record<string, string> = {
    accept: "application/json",
    "accept-encoding": "gzip, deflate, br",
  };
  const requestId = request.headers.get("x-request-id");
  if (requestId) headers["x-request-id"] = requestId;
  if (trace) headers.traceparent = formatTraceparent(trace.span);
  if (trace?.span.state) headers.tracestate = trace.span.state;
  return { url, method, headers, body, trace };
}

/** The call's URL and body for `input`: a 400 when off its contract or a value leaves its place. */
export function encodeCall({ path, checks }: Call, input: object, baseUrl: string) {
  const { params = {}, query = {}, body } = input as Record<string, Values | undefined>;
  const url = buildUrl(baseUrl, path, valid(params, checks?.params), valid(query, checks?.query));
  const sent = checks?.body;
  if (!sent || (body === undefined && !sent.required)) return { url };
  const { type, check } = sent;
  const value = valid(body, check) as Record<string, string>;
  const form = type === "application/x-www-form-urlencoded";
  return { url, type, body: form ? new URLSearchParams(value).toString() : JSON.stringify(value) };
}

function valid(value: Values | undefined, check?: Check) {
  if (check && !check(value)) throw createErrorResponse("BAD_REQUEST");
  return value;
}

type Values = Record<string, unknown>;

function buildUrl(baseUrl: string, path: string, params: Values = {}, query: Values = {}) {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    const text = typeof value === "string" || typeof value === "number" ? String(value) : "";
    if (text === "" || text === "." || text === "..") throw createErrorResponse("BAD_REQUEST");
    return encodeURIComponent(text);
  });
  const url = new URL(baseUrl.replace(/\/$/, "") + filled);
  for (const [name, value] of Object.entries(query)) {
    for (const item of value == null ? [] : [value].flat())
      url.searchParams.append(name, String(item));
  }
  return url;
}

const DEADLINE_PASSED = new Error("the call's deadline passed");
const ENDED_PER_TURN = 4;
const expired: AbortController[] = [];

// Calls started in one turn expire in one, and each ending renders a page: a few per turn.
function endExpiredCalls() {
  for (const controller of expired.splice(0, ENDED_PER_TURN)) controller.abort(DEADLINE_PASSED);
  if (expired.length > 0) setImmediate(endExpiredCalls);
}

/** Aborted when the visitor leaves or `timeoutMs` passes; cheaper than `AbortSignal.timeout`. */
export function startDeadline(visitor: AbortSignal | null, timeoutMs: number) {
  const controller = new AbortController();
  const leave = () => controller.abort(visitor?.reason);
  if (visitor?.aborted) leave();
  else visitor?.addEventListener("abort", leave, { once: true });
  const expire = () => expired.push(controller) === 1 && setImmediate(endExpiredCalls);
  const timer = setTimeout(expire, timeoutMs);
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

const MAX_ATTEMPTS = 3;
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const RETRY_COST = 10;
const MOST_CREDITS = 10 * RETRY_COST;

/** Retries per process as a token bucket (gRPC's retry throttling): a call earns a credit, a
 * retry costs ten. */
export type RetryBudget = { credits: number };
const processBudget: RetryBudget = { credits: MOST_CREDITS };

type Retries = {
  replayable: boolean;
  deadline: { signal: AbortSignal; endsAt: number };
  budget?: RetryBudget;
  onRetry: (outcome: "retry" | "budget_exhausted") => void;
};

/** The first answer worth reading, retrying what may mend within the deadline and the budget. */
export async function sendWithRetries(
  exchange: Exchange,
  options: Retries,
): Promise<IncomingMessage> {
  const { replayable, deadline, budget = processBudget, onRetry } = options;
  budget.credits = Math.min(MOST_CREDITS, budget.credits + 1);
  for (let retry = 1; ; retry++) {
    let response: IncomingMessage | undefined;
    let failure: unknown;
    try {
      response = await sendRequest(exchange, deadline.signal);
      if (!replayable || !RETRYABLE_STATUSES.has(response.statusCode ?? 0)) return response;
    } catch (error) {
      const mayMend = error instanceof UpstreamError && error.code === "UPSTREAM_UNAVAILABLE";
      if (!mayMend || (error.sent && !replayable)) throw error;
      failure = error;
    }
    const delay = getRetryDelay(retry, response?.headers["retry-after"]);
    const fits = retry < MAX_ATTEMPTS && performance.now() + delay < deadline.endsAt;
    if (fits && budget.credits < RETRY_COST) onRetry("budget_exhausted");
    if (!fits || budget.credits < RETRY_COST) {
      if (response) return response;
      throw failure;
    }
    budget.credits -= RETRY_COST;
    response?.destroy();
    onRetry("retry");
    await sleep(delay, undefined, { signal: deadline.signal });
  }
}

// Doubled with each retry, drawn from its upper half so that visitors do not retry in step.
function getRetryDelay(retry: number, retryAfter?: string) {
  const backoff = 100 * 2 ** (retry - 1);
  return Math.max(backoff / 2 + (Math.random() * backoff) / 2, parseRetryAfter(retryAfter));
}

// Delta-seconds or an HTTP date; anything else (negative, fractional, unreadable) asks for nothing.
function parseRetryAfter(value = "") {
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  const date = /[a-z]/i.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(date) ? 0 : date - Date.now();
}

// An idle connection is closed before the API closes it, so no write goes out on one the API is
// dropping: after 4 s, or a second before the API's announced `Keep-Alive: timeout`.
const IDLE_CONNECTION_MS = 4_000;
const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  "https:": new https.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
};
const MAX_HEADER_BYTES = 16 * 1024;
const NOT_CONNECTED = new Set(
  "ECONNREFUSED ENOTFOUND EAI_AGAIN EHOSTUNREACH ENETUNREACH EADDRNOTAVAIL".split(" "),
);
const CONNECTION_LOST = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "ETIMEDOUT"]);
const CANCELLED = new Error("request cancelled");

/** One request over `node:http` (decision 010), resolved when the answer's headers are in. */
export function sendRequest({ url, method, headers, body }: Exchange, signal: AbortSignal) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const agent = url.protocol === "https:" ? agents["https:"] : agents["http:"];
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(url, {
      method,
      headers,
      agent,
      maxHeaderSize: MAX_HEADER_BYTES,
    });
    let response: IncomingMessage | undefined;
    let answerStarted = false;
    request.once("socket", (socket) => socket.once("data", () => (answerStarted = true)));
    // Not `signal` as an option: its abort makes an AbortError with a stack each time.
    const cancel = () => {
      if (!response) request.destroy(CANCELLED);
      else if (!response.complete) response.destroy(CANCELLED);
    };
    signal.addEventListener("abort", cancel, { once: true });
    request.once("response", (answer) => resolve((response = answer)));
    // `on`: a request can report more than one error, and one unheard would crash.
    request.on("error", (error: Error & { code?: string }) => {
      const code = error.code ?? error.name;
      if (signal.aborted) reject(signal.reason);
      else if (NOT_CONNECTED.has(code)) {
        const notSent = new UpstreamError("UPSTREAM_UNAVAILABLE", `no connection: ${code}`);
        reject(Object.assign(notSent, { sent: false }));
      } else if (CONNECTION_LOST.has(code) && !answerStarted) {
        reject(
          new UpstreamError("UPSTREAM_UNAVAILABLE", `connection lost before an answer: ${code}`),
        );
      } else reject(badAnswer(`broken answer: ${code} ${error.message}`));
    });
    request.once("close", () => {
      signal.removeEventListener("abort", cancel);
      if (!response) reject(badAnswer("closed without an answer"));
    });
    request.end(body);
  });
}
