import type { LoaderFunctionArgs } from "@remix-run/node";
import { checkUpstream } from "~/api/client.server";
import { getConfig } from "~/lib/config.server";
import { getError } from "~/lib/errors";

/** Readiness: whether the API this app calls answers, so a balancer can hold traffic until it does. */
export async function loader({ request }: LoaderFunctionArgs) {
  const headers = { "Cache-Control": "no-store" };
  if (!getConfig().API_BASE_URL)
    return Response.json({ status: "ok", upstream: "not configured" }, { headers });
  const code = await checkUpstream(request);
  if (!code) return Response.json({ status: "ok", upstream: "ok" }, { headers });
  const { title } = getError(code);
  return Response.json({ status: "unavailable", upstream: title, code }, { status: 503, headers });
}
