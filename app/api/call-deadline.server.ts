const DEADLINE_PASSED = new Error("the call's deadline passed");

// Calls whose deadline passed, ended a few per turn of the event loop: each ending costs an error
// page (about 2 ms of CPU), and calls that started in one turn share a timer start, so a crowd of
// them expires in one turn. Ended all at once, 200 of them held the loop for 0.1-0.5 s.
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
