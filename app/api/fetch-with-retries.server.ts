import { setTimeout as sleep } from "node:timers/promises";
import { describe, UpstreamError } from "./upstream-error.server";

const RETRY_DELAYS_MS = [100, 300];

export const MAX_RETRIES = RETRY_DELAYS_MS.length;

/** Retries connection failures and 503s, `retries` times at most, before the deadline. */
export async function fetchWithRetries(
  url: URL,
  init: RequestInit & { signal: AbortSignal },
  retries: number,
) {
  for (let attempt = 0; ; attempt++) {
    const canRetry = attempt < retries;
    try {
      const response = await fetch(url, init);
      if (response.status !== 503 || !canRetry) return response;
      await response.body?.cancel();
    } catch (error) {
      if (init.signal.aborted) throw error;
      if (!canRetry) throw new UpstreamError("UPSTREAM_UNAVAILABLE", `no connection: ${describe(error)}`);
    }
    await sleep(RETRY_DELAYS_MS[attempt], undefined, { signal: init.signal });
  }
}
