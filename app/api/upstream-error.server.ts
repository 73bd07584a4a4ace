import type { ErrorCode } from "~/lib/errors";

/** A failure of the upstream, named by the catalogue entry the visitor will see. */
export class UpstreamError extends Error {
  constructor(
    readonly code: ErrorCode,
    reason: string,
  ) {
    super(reason);
  }
}

/** The underlying reason of a failed fetch, for the log. */
export function describe(error: unknown) {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
