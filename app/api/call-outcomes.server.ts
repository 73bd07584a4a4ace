import { logger } from "~/lib/logger.server";
import type { Call } from "./define-call";

/**
 * What became of a call: `ok`; the upstream status a call maps (`"404"`); `timeout`,
 * `unavailable` or `bad_answer` (the catalogue's 504, 503 and 502); `cancelled` when the visitor
 * left first. `retry` and `budget_exhausted` are reported along the way, once per retry made or
 * refused for want of budget.
 */
export type CallOutcome =
  "ok" | `${number}` | "timeout" | "unavailable" | "bad_answer" | "cancelled" | "retry" | "budget_exhausted";

export type CallOutcomeEvent = {
  /** The call's `name`, else its method and path template: never a filled-in value. */
  call: string;
  method: string;
  outcome: CallOutcome;
  /** Time since the call started. */
  durationMs: number;
};

type Listener = (event: CallOutcomeEvent) => void;

const listeners: Listener[] = [];

/** Calls `listener` with every outcome of every call (for metrics); returns its unsubscribe. */
export function onCallOutcome(listener: Listener) {
  listeners.push(listener);
  return () => {
    const index = listeners.indexOf(listener);
    if (index !== -1) listeners.splice(index, 1);
  };
}

export function reportOutcome(call: Call, outcome: CallOutcome, startedAt: number) {
  if (listeners.length === 0) return;
  const event = {
    call: getCallName(call),
    method: call.method,
    outcome,
    durationMs: performance.now() - startedAt,
  };
  for (const listener of listeners) {
    // Counting a call must never change its answer.
    try {
      listener(event);
    } catch (error) {
      logger.warn({ err: error }, "call outcome listener failed");
    }
  }
}

export function getCallName(call: Call) {
  return call.name ?? `${call.method} ${call.path}`;
}
