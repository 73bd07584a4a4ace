import type { LoaderFunctionArgs } from "@remix-run/node";
import { finishSignIn } from "~/auth/sign-in.server";
import { getConfig } from "~/lib/config.server";
import { createErrorResponse } from "~/lib/errors";

export { default, ErrorBoundary, headers, meta } from "~/auth/redirect-only-route";

export function loader({ request }: LoaderFunctionArgs) {
  const settings = getConfig().signIn;
  if (!settings) throw createErrorResponse("NOT_FOUND");
  return finishSignIn(request, settings);
}
