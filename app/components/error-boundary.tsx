import { isRouteErrorResponse, Link, useRouteError } from "@remix-run/react";
import { getError, getErrorForStatus, isErrorCode } from "~/errors";

/**
 * The one error view: the catalogue's words for the thrown code (see createErrorResponse), else
 * for the status, and a way home. It never shows an error's own message, so nothing internal
 * reaches a visitor.
 */
export function GeneralErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const code: unknown = isRouteErrorResponse(error) ? error.data?.code : undefined;
  const { title, message } = isErrorCode(code) ? getError(code) : getErrorForStatus(status);
  return (
    <section className="error" aria-labelledby="error-title">
      <p className="error-status">Error {status}</p>
      <h1 id="error-title">{title}</h1>
      <p>{message}</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </section>
  );
}
