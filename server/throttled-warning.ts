import { logger } from "~/lib/logger.server";

const MINUTE_MS = 60_000;

/**
 * A warning about something outside the server (a store, a collector) that is down: said at most
 * once a minute however often it fails, so an outage cannot flood the log.
 */
export function createThrottledWarning(message: string) {
  let warnedAt = -Infinity;
  return (error: unknown) => {
    if (performance.now() - warnedAt < MINUTE_MS) return;
    warnedAt = performance.now();
    logger.warn({ err: error }, `${message} (said at most once a minute)`);
  };
}
