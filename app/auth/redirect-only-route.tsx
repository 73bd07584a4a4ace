import type { HeadersFunction, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse } from "@remix-run/react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { APP_DESCRIPTION, APP_NAME } from "~/lib/constants";
import { getError, getErrorForStatus, isErrorCode } from "~/lib/errors";

// What the /auth/* routes render: they redirect, so a page of theirs is only ever an error page.

export default function RedirectOnlyPage() {
  return null;
}

// Their answers concern who the visitor is, for no cache to keep; a 405 says what is allowed.
export const headers: HeadersFunction = ({ errorHeaders }) => {
  const headers = new Headers({ "Cache-Control": "no-store" });
  const allow = errorHeaders?.get("Allow");
  if (allow) headers.set("Allow", allow);
  return headers;
};

export const meta: MetaFunction = ({ error }) => {
  const code: unknown = isRouteErrorResponse(error) ? error.data?.code : undefined;
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const { title } = isErrorCode(code) ? getError(code) : getErrorForStatus(status);
  return [{ title: `${title} · ${APP_NAME}` }, { name: "description", content: APP_DESCRIPTION }];
};

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
