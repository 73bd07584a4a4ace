import type { HeadersFunction, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse } from "@remix-run/react";
import { getErrorTitle, GeneralErrorBoundary } from "~/components/error-boundary";
import { getTranslatorFor } from "~/i18n/translate";
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

export const meta: MetaFunction = ({ error, matches }) => {
  const code: unknown = isRouteErrorResponse(error) ? error.data?.code : undefined;
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const t = getTranslatorFor(matches);
  const title = getErrorTitle(t, isErrorCode(code) ? getError(code) : getErrorForStatus(status));
  return [{ title: t.title(title) }, { name: "description", content: t("app.description") }];
};

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
