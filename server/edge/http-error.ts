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

/** The client hung up, broke the message framing or ran out of time before its body was read. */
export class ClientGoneError extends Error {
  constructor() {
    super("client left before its request was complete");
  }
}
