import { logger } from "./logger.server";

const MINUTE_MS = 60_000;

/**
 * A warning for a failure that repeats while it lasts (a collector, a Redis or the API that is
 * down): the first is logged, then at most one a minute, saying so, however often it happens.
 * `reset` marks the failure over, so the next one is said at once.
 */
export function createThrottledWarning(message: string) {
  let warnedAt = -Infinity;
  const warn = (fields: Record<string, unknown>) => {
    if (performance.now() - warnedAt < MINUTE_MS) return;
    warnedAt = performance.now();
    logger.warn(fields, `${message} (said at most once a minute)`);
  };
  return Object.assign(warn, { reset: () => void (warnedAt = -Infinity) });
}
