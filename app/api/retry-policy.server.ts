/** Attempts per call at most, the first included; the call's one deadline bounds them all. */
export const MAX_ATTEMPTS = 3;

/** Statuses that say the API, or a gateway before it, could not take the request just now. */
export const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Methods whose request may be sent twice with the effect of once, by HTTP's own rules. */
export const REPLAYABLE_METHODS = new Set(["GET", "HEAD", "PUT"]);

const BACKOFF_MS = 100;

/**
 * The wait before retry number `retry` (1, 2 ...): 100 ms doubled each time, each wait drawn at
 * random from its upper half so that visitors of a failing API do not retry in step. A
 * `Retry-After` the API sent makes it longer.
 */
export function getRetryDelay(retry: number, retryAfter?: string, now = Date.now()) {
  const backoff = BACKOFF_MS * 2 ** (retry - 1);
  const jittered = backoff / 2 + (Math.random() * backoff) / 2;
  return Math.max(jittered, parseRetryAfter(retryAfter, now) ?? 0);
}

/**
 * Milliseconds a `Retry-After` header asks to wait: delta-seconds or an HTTP date (a past date
 * is 0). Anything else, negative numbers included, is ignored. A huge value stays a number,
 * which no deadline fits.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()) {
  const text = value?.trim() ?? "";
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  const date = /[a-z]/i.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export type RetryBudget = ReturnType<typeof createRetryBudget>;

/**
 * Retries per process as a token bucket (gRPC's retry throttling, Finagle's retry budget): each
 * call earns one credit, a retry costs `callsPerRetry` of them, and at most `max` retries are
 * saved for a burst. A failing API so sees at most about 1.1 times the calls it would without
 * retries. Credits are whole numbers, so ten calls buy exactly one retry.
 */
export function createRetryBudget({ callsPerRetry = 10, max = 10 } = {}) {
  const most = max * callsPerRetry;
  let credits = most;
  return {
    earn() {
      credits = Math.min(most, credits + 1);
    },
    /** Takes the credits for one retry; false when there are too few. */
    spend() {
      if (credits < callsPerRetry) return false;
      credits -= callsPerRetry;
      return true;
    },
  };
}
