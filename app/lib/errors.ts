// Every error a visitor can be shown, with its status and words; the spec's errors are added at the end.
export const errorCatalogue = {
  BAD_REQUEST: {
    status: 400,
    title: "Bad request",
    message: "The request could not be understood. Check the address and try again.",
  },
  VALIDATION_FAILED: {
    status: 400,
    title: "Check your answers",
    message: "Some of the information you sent is not valid. Correct it and send it again.",
  },
  CROSS_SITE_REQUEST: {
    status: 403,
    title: "Request refused",
    message: "This request did not come from this site, so it was refused.",
  },
  NOT_FOUND: {
    status: 404,
    title: "Page not found",
    message: "There is nothing at this address. It may have moved, or the link may be wrong.",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    title: "Not allowed here",
    message: "This address does not accept that kind of request.",
  },
  REQUEST_TIMEOUT: {
    status: 408,
    title: "Request timed out",
    message: "Your request took too long to arrive. Try again.",
  },
  PRECONDITION_FAILED: {
    status: 412,
    title: "Version changed",
    message: "The file no longer matches the version your request asked for. Load it again.",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: "Too much data",
    message: "What you sent is larger than this site accepts.",
  },
  URI_TOO_LONG: {
    status: 414,
    title: "Address too long",
    message: "The address you asked for is longer than this site accepts. Check it and try again.",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: "Unsupported format",
    message: "What you sent is in a format this address does not accept.",
  },
  RANGE_NOT_SATISFIABLE: {
    status: 416,
    title: "Range not available",
    message: "The part of the file your request asked for does not exist.",
  },
  EXPECTATION_FAILED: {
    status: 417,
    title: "Expectation not supported",
    message: "Your request asked for handling this site does not offer.",
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    title: "Request headers too large",
    message:
      "Your request carried more header data than this site accepts. Clearing this site's cookies may help.",
  },
  RATE_LIMITED: {
    status: 429,
    title: "Too many requests",
    message: "You have sent too many requests in a short time. Wait a minute and try again.",
  },
  INTERNAL: {
    status: 500,
    title: "Something went wrong",
    message: "An unexpected error occurred on our side. Try again in a moment.",
  },
  UPSTREAM_BAD_RESPONSE: {
    status: 502,
    title: "Service error",
    message: "A service this page depends on sent an answer we could not use. Try again later.",
  },
  UPSTREAM_UNAVAILABLE: {
    status: 503,
    title: "Service unavailable",
    message: "A service this page depends on is not available right now. Try again later.",
  },
  UPSTREAM_TIMEOUT: {
    status: 504,
    title: "Service timed out",
    message: "A service this page depends on took too long to answer. Try again later.",
  },
  SIGN_IN_REQUIRED: {
    status: 401,
    title: "Sign in to continue",
    message: "This needs you to be signed in. Sign in, then try again.",
  },
  FORBIDDEN: {
    status: 403,
    title: "Not allowed",
    message: "Your account does not have permission to do this.",
  },
  SIGN_IN_DENIED: {
    status: 403,
    title: "Sign-in not completed",
    message: "The sign-in service did not sign you in. You can try again.",
  },
  SIGN_IN_EXPIRED: {
    status: 400,
    title: "Sign-in expired",
    message: "This sign-in was not started here or took too long. Sign in again.",
  },
  SIGN_IN_FAILED: {
    status: 502,
    title: "Sign-in failed",
    message: "The sign-in service sent an answer we could not trust. Try again later.",
  },
  SIGN_IN_UNAVAILABLE: {
    status: 503,
    title: "Sign-in unavailable",
    message: "Signing in is not possible right now. Try again in a moment.",
  },
  NOT_CHANGED: {
    status: 409,
    title: "Nothing was changed",
    message: "It changed before your request arrived, so nothing was done. The page shows it as it is now.",
  },
} as const satisfies Record<string, { status: number; title: string; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;
export type CatalogueError = { code: ErrorCode; status: number; title: string; message: string };
const codes = Object.keys(errorCatalogue) as ErrorCode[];

export const getError = (code: ErrorCode): CatalogueError => ({ code, ...errorCatalogue[code] });

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === "string" && Object.hasOwn(errorCatalogue, value);

/** The first entry with `status`, else the generic entry of its class (BAD_REQUEST or INTERNAL). */
export function getErrorForStatus(status: number): CatalogueError {
  const code = codes.find((known) => errorCatalogue[known].status === status);
  const fallback = status >= 400 && status < 500 ? "BAD_REQUEST" : "INTERNAL";
  return { ...getError(code ?? fallback), status: status >= 400 && status < 600 ? status : 500 };
}

/** What a loader or action throws to show an entry: its status, and its code for the error boundary. */
export function createErrorResponse(code: ErrorCode): Response {
  return Response.json({ code }, { status: errorCatalogue[code].status });
}
