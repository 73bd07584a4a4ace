/**
 * How long a wait may last before it is taken for a hang: a bound that catches a process that
 * will never answer, never a measure of speed (a busy machine may take many times a quiet one's).
 * Every timeout of the suites is this one (docs/testing.md).
 */
export const HANG_TIMEOUT_MS = 5 * 60_000;
