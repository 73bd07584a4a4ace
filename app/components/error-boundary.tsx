import { isRouteErrorResponse, Link, useRouteError } from "@remix-run/react";
import type { ReactNode } from "react";
import { getError, getErrorForStatus, isErrorCode, type CatalogueError } from "~/lib/errors";

/**
 * The one error view: the catalogue's words for the thrown code (see createErrorResponse), else
 * for the status, and a way home. It never shows an error's own message, so nothing internal
 * reaches a visitor.
 */
export function GeneralErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const code: unknown = isRouteErrorResponse(error) ? error.data?.code : undefined;
  return <ErrorPage status={status} error={isErrorCode(code) ? getError(code) : getErrorForStatus(status)} />;
}

/** The error view for a status a route answers without throwing. */
export function ErrorPage({
  status,
  error = getErrorForStatus(status),
}: {
  status: number;
  error?: CatalogueError;
}) {
  return <ErrorView status={status} error={error} HomeLink={AppHomeLink} />;
}

type HomeLinkProps = { children: ReactNode };

const AppHomeLink = ({ children }: HomeLinkProps) => <Link to="/">{children}</Link>;

/**
 * The error's markup, shared with the pages the server sends before Remix runs, which link home
 * with a plain anchor.
 */
export function ErrorView({
  status,
  error,
  HomeLink,
}: {
  status: number;
  error: CatalogueError;
  HomeLink: (props: HomeLinkProps) => ReactNode;
}) {
  return (
    <section className="error" aria-labelledby="error-title">
      <p className="error-status">Error {status}</p>
      <h1 id="error-title">{error.title}</h1>
      <p>{error.message}</p>
      <p>
        <HomeLink>Go to the home page</HomeLink>
      </p>
    </section>
  );
}
