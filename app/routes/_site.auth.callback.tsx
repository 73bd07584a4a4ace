import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { finishSignIn } from "~/auth/sign-in.server";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { getConfig } from "~/lib/config.server";
import { APP_NAME } from "~/lib/constants";
import { createErrorResponse } from "~/lib/errors";

// GET /auth/callback: where the provider sends the visitor back (ORIGIN/auth/callback).
export function loader({ request }: LoaderFunctionArgs) {
  const settings = getConfig().signIn;
  if (!settings) throw createErrorResponse("NOT_FOUND");
  return finishSignIn(request, settings);
}

export default function SignInCallbackPage() {
  return null;
}

export const meta: MetaFunction = () => [{ title: `Sign in · ${APP_NAME}` }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
