import type { LoaderFunctionArgs } from "@remix-run/node";
import { checkUpstream } from "~/api/client.server";
import { getSessionsNotReady } from "~/auth/session.server";
import { getConfig } from "~/lib/config.server";
import { getError } from "~/lib/errors";

/** Readiness: the API answers, and with sessions in Redis its first connection is made. */
export async function loader({ request }: LoaderFunctionArgs) {
  const headers = { "Cache-Control": "no-store" };
  const inRedis = Boolean(getConfig().signIn?.redisUrl);
  const sessionsNotReady = await getSessionsNotReady();
  if (sessionsNotReady) {
    const code = "SIGN_IN_UNAVAILABLE";
    return Response.json(
      { status: "unavailable", sessions: sessionsNotReady, code },
      { status: 503, headers },
    );
  }
  const ready = { status: "ok", ...(inRedis ? { sessions: "ok" } : {}) };
  if (!getConfig().API_BASE_URL) return Response.json({ ...ready, upstream: "not configured" }, { headers });
  const code = await checkUpstream(request);
  if (!code) return Response.json({ ...ready, upstream: "ok" }, { headers });
  const { title } = getError(code);
  return Response.json({ status: "unavailable", upstream: title, code }, { status: 503, headers });
}
