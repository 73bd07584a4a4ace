import { isRouteErrorResponse, Link, useRouteError } from "@remix-run/react";
import { getErrorForStatus } from "~/errors";

/**
 * The one error view: the catalogue's words for the status, and a way home. It never shows an
 * error's own message, so nothing internal reaches a visitor.
 */
export function GeneralErrorBoundary() {
  const error = useRouteError();
  return <ErrorPage status={isRouteErrorResponse(error) ? error.status : 500} />;
}

/** The error view for a status a route answers without throwing. */
export function ErrorPage({ status }: { status: number }) {
  const { title, message } = getErrorForStatus(status);
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
