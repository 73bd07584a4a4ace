import type { ErrorCode } from "~/lib/errors";
import type { CallOutcome } from "./call-outcomes.server";
import type { Call } from "./define-call";

const outcomeForCode: Partial<Record<ErrorCode, CallOutcome>> = {
  UPSTREAM_BAD_RESPONSE: "bad_answer",
  UPSTREAM_UNAVAILABLE: "unavailable",
  UPSTREAM_TIMEOUT: "timeout",
};

/** A failure of the upstream, named by the catalogue entry the visitor will see. */
export class UpstreamError extends Error {
  readonly outcome: CallOutcome;
  /** False when nothing reached the API (no connection), so even a write may be sent again. */
  readonly sent: boolean;

  constructor(
    readonly code: ErrorCode,
    reason: string,
    options: { sent?: boolean; mappedStatus?: number } = {},
  ) {
    super(reason);
    this.sent = options.sent ?? true;
    this.outcome = options.mappedStatus ? `${options.mappedStatus}` : (outcomeForCode[code] ?? "bad_answer");
  }
}

// A busy API (429) is as unavailable as one that says so (503); a gateway's 504 is a timeout.
// Any other status a call does not declare is an answer it cannot use.
const codeForStatus: Partial<Record<number, ErrorCode>> = {
  429: "UPSTREAM_UNAVAILABLE",
  503: "UPSTREAM_UNAVAILABLE",
  504: "UPSTREAM_TIMEOUT",
};

export function getFailureForStatus(call: Call, status: number) {
  const reason = `upstream answered ${status}`;
  const expected = status >= 400 && status < 500 ? call.errors?.[status] : undefined;
  if (expected) return new UpstreamError(expected, reason, { mappedStatus: status });
  return new UpstreamError(codeForStatus[status] ?? "UPSTREAM_BAD_RESPONSE", reason);
}
