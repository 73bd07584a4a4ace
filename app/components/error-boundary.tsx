import { isRouteErrorResponse, Link, useParams, useRouteError, type Params } from "@remix-run/react";
import type { ReactNode } from "react";
import { getError, getErrorForStatus, isErrorCode, type CatalogueError } from "~/lib/errors";

type StatusHandler = (info: { params: Params }) => ReactNode;

/** A route's own page for a status it knows (`statusHandlers`), else the catalogue's: never an error's message. */
export function GeneralErrorBoundary({
  statusHandlers = {},
}: {
  statusHandlers?: Record<number, StatusHandler>;
}) {
  const error = useRouteError();
  const params = useParams();
  if (!isRouteErrorResponse(error)) return <ErrorPage status={500} />;
  const handler = Object.hasOwn(statusHandlers, error.status) ? statusHandlers[error.status] : undefined;
  if (handler) return <>{handler({ params })}</>;
  const code: unknown = error.data?.code;
  return <ErrorPage status={error.status} error={isErrorCode(code) ? getError(code) : undefined} />;
}

/** The error view for a status a route answers without throwing, or handles itself. */
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

/** Also the markup of the pages the server sends before Remix runs, which link home with a plain anchor. */
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
