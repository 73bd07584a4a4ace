import type { ActionFunctionArgs } from "@remix-run/node";
import { signOut } from "~/auth/sign-in.server";
import { getConfig } from "~/lib/config.server";
import { createErrorResponse } from "~/lib/errors";

export { default, ErrorBoundary, headers, meta } from "~/auth/redirect-only-route";

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
