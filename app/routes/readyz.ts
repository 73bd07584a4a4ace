import type { LoaderFunctionArgs } from "@remix-run/node";
import { callApi } from "~/api/client.server";
import { getApiHealth } from "~/api/health.server";
import { getSessionsNotReady } from "~/auth/session.server";
import { getConfig } from "~/lib/config.server";
import { shellMessages } from "~/i18n/messages.server";
import { isErrorCode, type ErrorCode } from "~/lib/errors";

/** Readiness: the API answers, and with sessions in Redis its first connection is made. */
export async function loader({ request }: LoaderFunctionArgs) {
  const headers = { "Cache-Control": "no-store" };
  const { API_BASE_URL, signIn } = getConfig();
  const sessionsNotReady = await getSessionsNotReady();
  if (sessionsNotReady) {
    const code = "SIGN_IN_UNAVAILABLE";
    const body = { status: "unavailable", sessions: sessionsNotReady, code };
    return Response.json(body, { status: 503, headers });
  }
  const ready = { status: "ok", ...(signIn?.redisUrl ? { sessions: "ok" } : {}) };
  if (!API_BASE_URL) return Response.json({ ...ready, upstream: "not configured" }, { headers });
  // One check in flight: the probes that ask meanwhile wait on it, each free to leave.
  check ??= checkUpstream(request).finally(() => (check = undefined));
  const code = await untilLeft(request.signal, check);
  if (!code) return Response.json({ ...ready, upstream: "ok" }, { headers });
  const body = { status: "unavailable", upstream: shellMessages.en[`errors.${code}.title`], code };
  return Response.json(body, { status: 503, headers });
}

let check: Promise<ErrorCode | null> | undefined;

async function checkUpstream(probe: Request): Promise<ErrorCode | null> {
  // Nobody's visit: the probe that started the check leaving does not end it.
  const request = new Request(probe.url, { headers: probe.headers });
  try {
    await callApi(request, getApiHealth, {});
    return null;
  } catch (error) {
    if (!(error instanceof Response)) throw error;
    if (error.status < 500) return null;
    const { code } = (await error.json()) as { code?: unknown };
    return isErrorCode(code) ? code : "UPSTREAM_UNAVAILABLE";
  }
}

function untilLeft<T>(visitor: AbortSignal, result: Promise<T>) {
  if (visitor.aborted) return Promise.reject(visitor.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const leave = () => reject(visitor.reason as Error);
    visitor.addEventListener("abort", leave, { once: true });
    result.then(resolve, reject).finally(() => visitor.removeEventListener("abort", leave));
  });
}
