import { getError, type ErrorCode } from "~/lib/errors";

/** A refusal decided by the server before Remix runs, answered with the catalogue's entry. */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly headers: Record<string, string> = {},
  ) {
    super(code);
    this.status = getError(code).status;
  }
}
