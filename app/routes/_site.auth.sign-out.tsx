import type { ActionFunctionArgs, MetaFunction } from "@remix-run/node";
import { signOut } from "~/auth/sign-in.server";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { getConfig } from "~/lib/config.server";
import { APP_NAME } from "~/lib/constants";
import { createErrorResponse } from "~/lib/errors";

// POST /auth/sign-out only: a link or a prefetch must never sign anyone out.
export function loader() {
  if (!getConfig().signIn) throw createErrorResponse("NOT_FOUND");
  const response = createErrorResponse("METHOD_NOT_ALLOWED");
  response.headers.set("Allow", "POST");
  throw response;
}

export function action({ request }: ActionFunctionArgs) {
  const settings = getConfig().signIn;
  if (!settings) throw createErrorResponse("NOT_FOUND");
  return signOut(request, settings);
}

export default function SignOutPage() {
  return null;
}

export const meta: MetaFunction = () => [{ title: `Sign out · ${APP_NAME}` }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
