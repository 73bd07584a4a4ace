import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { startSignIn } from "~/auth/sign-in.server";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { getConfig } from "~/lib/config.server";
import { APP_NAME } from "~/lib/constants";
import { createErrorResponse } from "~/lib/errors";

// GET /auth/sign-in?redirectTo=/path: off to the provider; a page only when that fails.
export function loader({ request }: LoaderFunctionArgs) {
  const settings = getConfig().signIn;
  if (!settings) throw createErrorResponse("NOT_FOUND");
  return startSignIn(request, settings);
}

export default function SignInPage() {
  return null;
}

export const meta: MetaFunction = () => [{ title: `Sign in · ${APP_NAME}` }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
