const DEADLINE_PASSED = new Error("the call's deadline passed");

// Calls whose deadline passed, ended a few per turn of the event loop: calls started in one turn
// expire in one turn, and each ending renders an error page (docs/performance.md).
const ENDED_PER_TURN = 4;
const expired: AbortController[] = [];

function endExpiredCalls() {
  for (const controller of expired.splice(0, ENDED_PER_TURN)) controller.abort(DEADLINE_PASSED);
  if (expired.length > 0) setImmediate(endExpiredCalls);
}

/**
 * The one signal a call's requests and waits listen to: aborted when the visitor leaves or when
 * `timeoutMs` has passed. A plain controller and timer rather than `AbortSignal.any` and
 * `AbortSignal.timeout`, which cost more per call. `dispose` it when the call ends.
 */
export function startCallDeadline(visitor: AbortSignal, timeoutMs: number) {
  const controller = new AbortController();
  const leave = () => controller.abort(visitor.reason);
  if (visitor.aborted) leave();
  else visitor.addEventListener("abort", leave, { once: true });
  const timer = setTimeout(() => {
    if (expired.push(controller) === 1) setImmediate(endExpiredCalls);
  }, timeoutMs);
  return {
    signal: controller.signal,
    /** `performance.now()` at which the deadline passes. */
    endsAt: performance.now() + timeoutMs,
    get passed() {
      return controller.signal.reason === DEADLINE_PASSED;
    },
    dispose() {
      clearTimeout(timer);
      visitor.removeEventListener("abort", leave);
    },
  };
}
