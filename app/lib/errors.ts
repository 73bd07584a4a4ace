// Every error a visitor can be shown, with its status; its words are in each locale's catalogue
// (`errors.<CODE>.title` and `.message`, app/i18n/). The spec's errors are added at the end.
export const errorCatalogue = {
  BAD_REQUEST: { status: 400 },
  VALIDATION_FAILED: { status: 400 },
  CROSS_SITE_REQUEST: { status: 403 },
  NOT_FOUND: { status: 404 },
  METHOD_NOT_ALLOWED: { status: 405 },
  REQUEST_TIMEOUT: { status: 408 },
  PRECONDITION_FAILED: { status: 412 },
  PAYLOAD_TOO_LARGE: { status: 413 },
  URI_TOO_LONG: { status: 414 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415 },
  RANGE_NOT_SATISFIABLE: { status: 416 },
  EXPECTATION_FAILED: { status: 417 },
  HEADERS_TOO_LARGE: { status: 431 },
  RATE_LIMITED: { status: 429 },
  INTERNAL: { status: 500 },
  UPSTREAM_BAD_RESPONSE: { status: 502 },
  UPSTREAM_UNAVAILABLE: { status: 503 },
  UPSTREAM_TIMEOUT: { status: 504 },
  SIGN_IN_REQUIRED: { status: 401 },
  FORBIDDEN: { status: 403 },
  SIGN_IN_DENIED: { status: 403 },
  SIGN_IN_EXPIRED: { status: 400 },
  SIGN_IN_FAILED: { status: 502 },
  SIGN_IN_UNAVAILABLE: { status: 503 },
  NOT_CHANGED: { status: 409 },
} as const satisfies Record<string, { status: number }>;

export type ErrorCode = keyof typeof errorCatalogue;
export type CatalogueError = { code: ErrorCode; status: number };
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
