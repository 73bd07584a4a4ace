import { logger } from "~/lib/logger.server";

const MINUTE_MS = 60_000;

/**
 * A warning for a failure that repeats while it lasts (a collector or a Redis that is down): the
 * first is logged, then at most one a minute, saying so, however often it happens.
 */
export function createThrottledWarning(message: string) {
  let warnedAt = -Infinity;
  return (fields: Record<string, unknown>) => {
    if (performance.now() - warnedAt < MINUTE_MS) return;
    warnedAt = performance.now();
    logger.warn(fields, `${message} (said at most once a minute)`);
  };
}
