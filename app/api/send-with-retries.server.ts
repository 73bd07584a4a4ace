import type { IncomingMessage } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { getRetryDelay, MAX_ATTEMPTS, RETRYABLE_STATUSES, type RetryBudget } from "./retry-policy.server";
import { sendRequest, type Exchange } from "./send-request.server";
import { UpstreamError } from "./upstream-error.server";

type Options = {
  /** Whether the request may reach the API twice: a read, a PUT, or a write with an idempotency key. */
  replayable: boolean;
  signal: AbortSignal;
  /** `performance.now()` at which the call's deadline passes; a retry must start before it. */
  deadlineAt: number;
  budget: RetryBudget;
  onRetry: (outcome: "retry" | "budget_exhausted") => void;
};

/**
 * Sends `exchange` until it gets an answer worth reading, retrying what may mend: a connection
 * refused (any method: nothing reached the API), and for replayable requests a connection lost
 * before any answer byte and a 429, 502, 503 or 504. A retry waits with jitter (or as long as
 * `Retry-After` asks) and happens only when that wait ends before the deadline and the budget
 * allows it; otherwise the last answer is returned, or its failure thrown, at once.
 */
export async function sendWithRetries(exchange: Exchange, options: Options): Promise<IncomingMessage> {
  const { replayable, signal, deadlineAt, budget, onRetry } = options;
  budget.earn();
  for (let retry = 1; ; retry++) {
    let response: IncomingMessage | undefined;
    let failure: UpstreamError | undefined;
    try {
      response = await sendRequest(exchange, signal);
      if (!replayable || !RETRYABLE_STATUSES.has(response.statusCode ?? 0)) return response;
    } catch (error) {
      const mayMend = error instanceof UpstreamError && error.code === "UPSTREAM_UNAVAILABLE";
      if (!mayMend || (error.sent && !replayable)) throw error;
      failure = error;
    }
    const delay = getRetryDelay(retry, response?.headers["retry-after"]);
    const fits = retry < MAX_ATTEMPTS && performance.now() + delay < deadlineAt;
    const retrying = fits && budget.spend();
    if (fits && !retrying) onRetry("budget_exhausted");
    if (!retrying) {
      if (response) return response;
      throw failure;
    }
    response?.destroy();
    onRetry("retry");
    await sleep(delay, undefined, { signal });
  }
}
