import type { MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { APP_DESCRIPTION, APP_NAME } from "~/lib/constants";
import { createErrorResponse, getError } from "~/lib/errors";

// Every address no other route claims lands here and answers 404 inside the site layout.
export function loader() {
  throw createErrorResponse("NOT_FOUND");
}

export default function NotFoundPage() {
  return null;
}

export const meta: MetaFunction = () => [
  { title: `${getError("NOT_FOUND").title} · ${APP_NAME}` },
  { name: "description", content: APP_DESCRIPTION },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
