import diagnosticsChannel from "node:diagnostics_channel";
import { logger } from "~/lib/logger.server";
import type { Call } from "./define-call";
import type { Exchange } from "./send-request.server";

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
  /** The call's span in its request's trace (`traceparent` as sent), and its parent's span id. */
  trace?: Exchange["trace"];
};

/** One call in the making: what its outcomes are reported with. */
export type CallAttempt = { call: Call; startedAt: number; trace?: Exchange["trace"] };

type Listener = (event: CallOutcomeEvent) => void;

// A named channel rather than a list in this module: the server and the Remix build are bundled
// apart, each with its own copy of this module, and a channel's name is one per process.
// Publishing to a channel nobody listens to costs nothing.
const channel = diagnosticsChannel.channel("web-app:call-outcome");

/** Calls `listener` with every outcome of every call (for metrics); returns its unsubscribe. */
export function onCallOutcome(listener: Listener) {
  const heard = (message: unknown) => {
    // Counting a call must never change its answer.
    try {
      listener(message as CallOutcomeEvent);
    } catch (error) {
      logger.warn({ err: error }, "call outcome listener failed");
    }
  };
  channel.subscribe(heard);
  return () => void channel.unsubscribe(heard);
}

export function reportOutcome({ call, startedAt, trace }: CallAttempt, outcome: CallOutcome) {
  if (!channel.hasSubscribers) return;
  const event: CallOutcomeEvent = {
    call: getCallName(call),
    method: call.method,
    outcome,
    durationMs: performance.now() - startedAt,
    trace,
  };
  channel.publish(event);
}

export function getCallName(call: Call) {
  return call.name ?? `${call.method} ${call.path}`;
}
