import type { MetaFunction } from "@remix-run/node";
import { getErrorTitle, GeneralErrorBoundary } from "~/components/error-boundary";
import { getTranslatorFor } from "~/i18n/translate";
import { createErrorResponse, getError } from "~/lib/errors";

// Every address no other route claims lands here and answers 404 inside the site layout.
export function loader() {
  throw createErrorResponse("NOT_FOUND");
}

export default function NotFoundPage() {
  return null;
}

export const meta: MetaFunction = ({ matches }) => {
  const t = getTranslatorFor(matches);
  return [
    { title: t.title(getErrorTitle(t, getError("NOT_FOUND"))) },
    { name: "description", content: t("app.description") },
  ];
};

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
