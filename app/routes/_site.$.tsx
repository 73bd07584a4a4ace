import type { MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { APP_DESCRIPTION, APP_NAME } from "~/constants";
import { getError } from "~/errors";

// Every address no other route claims lands here and answers 404 inside the site layout.
export function loader() {
  const { status, title } = getError("NOT_FOUND");
  throw new Response(title, { status });
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
