import {
  isRouteErrorResponse,
  Link,
  useParams,
  useRouteError,
  type Params,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslate, type Translate } from "~/i18n/translate";
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
  const handler = Object.hasOwn(statusHandlers, error.status)
    ? statusHandlers[error.status]
    : undefined;
  if (handler) return <>{handler({ params })}</>;
  const code: unknown = error.data?.code;
  return <ErrorPage status={error.status} error={isErrorCode(code) ? getError(code) : undefined} />;
}

/** The error view for a status a route answers without throwing, or handles itself (`title`). */
export function ErrorPage({
  status,
  error = getErrorForStatus(status),
  title,
}: {
  status: number;
  error?: CatalogueError;
  title?: string;
}) {
  const t = useTranslate();
  return <ErrorView status={status} error={error} title={title} t={t} HomeLink={AppHomeLink} />;
}

type HomeLinkProps = { children: ReactNode };

const AppHomeLink = ({ children }: HomeLinkProps) => <Link to="/">{children}</Link>;

/** Also the markup of the pages the server sends before Remix runs, which link home with a plain anchor. */
export function ErrorView({
  status,
  error,
  t,
  title = getErrorTitle(t, error),
  HomeLink,
}: {
  status: number;
  error: CatalogueError;
  t: Translate;
  title?: string;
  HomeLink: (props: HomeLinkProps) => ReactNode;
}) {
  return (
    <section className="error" aria-labelledby="error-title">
      <p className="error-status">{t("errors.status", { status })}</p>
      <h1 id="error-title">{title}</h1>
      <p>{t(`errors.${error.code}.message`)}</p>
      <p>
        <HomeLink>{t("errors.home")}</HomeLink>
      </p>
    </section>
  );
}

export const getErrorTitle = (t: Translate, error: CatalogueError) =>
  t(`errors.${error.code}.title`);
