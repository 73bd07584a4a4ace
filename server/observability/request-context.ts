import { randomUUID } from "node:crypto";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Keeps a caller's X-Request-Id when it is safe to log and echo, otherwise makes a new one. */
export function getRequestId(incoming: string | undefined) {
  return incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * The ids of the requests being answered, so a crash can name them: any of them may have
 * caused it, and all of them are lost with the process. (Per-request async context would name
 * exactly one, but on Node 20 it hooks every promise, a few per cent of each page's CPU.)
 */
const inFlight = new Map<string, number>();
let inFlightCount = 0;

export function trackInFlight(requestId: string) {
  inFlight.set(requestId, (inFlight.get(requestId) ?? 0) + 1);
  inFlightCount++;
  return () => {
    inFlightCount--;
    const count = inFlight.get(requestId)! - 1;
    if (count === 0) inFlight.delete(requestId);
    else inFlight.set(requestId, count);
  };
}

/** `requestId` when one request was in flight (it is the one), else every id in flight. */
export function describeInFlight() {
  const ids = [...inFlight.keys()];
  return ids.length === 1 ? { requestId: ids[0] } : { inFlightRequestIds: ids };
}

/** How many requests are being answered now. */
export function countInFlight() {
  return inFlightCount;
}
