import type { LoaderFunctionArgs } from "@remix-run/node";
import { startDeadline } from "~/api/client.server";
import { createExchange, sendRequest } from "~/api/send-request.server";
import { getSessionsNotReady } from "~/auth/session.server";
import { getConfig } from "~/lib/config.server";
import { getError, type ErrorCode } from "~/lib/errors";
import { createThrottledWarning, getRequestFields } from "~/lib/logger.server";

/** Readiness: the API answers, and with sessions in Redis its first connection is made. */
export async function loader({ request }: LoaderFunctionArgs) {
  const headers = { "Cache-Control": "no-store" };
  const { API_BASE_URL, API_HEALTH_PATH, API_TIMEOUT_MS, signIn } = getConfig();
  const sessionsNotReady = await getSessionsNotReady();
  if (sessionsNotReady) {
    const code = "SIGN_IN_UNAVAILABLE";
    return Response.json(
      { status: "unavailable", sessions: sessionsNotReady, code },
      { status: 503, headers },
    );
  }
  const ready = { status: "ok", ...(signIn?.redisUrl ? { sessions: "ok" } : {}) };
  if (!API_BASE_URL) return Response.json({ ...ready, upstream: "not configured" }, { headers });
  const url = `${API_BASE_URL}${API_HEALTH_PATH}`;
  let check = checks.get(url);
  if (!check) {
    check = checkUpstream(request, new URL(url), API_TIMEOUT_MS);
    checks.set(url, check);
    void check.finally(() => checks.delete(url));
  }
  const code = await untilLeft(request.signal, check);
  if (!code) return Response.json({ ...ready, upstream: "ok" }, { headers });
  return Response.json(
    { status: "unavailable", upstream: getError(code).title, code },
    { status: 503, headers },
  );
}

// One check in flight per URL: the probes that ask meanwhile wait on it, each free to leave.
const checks = new Map<string, Promise<ErrorCode | null>>();
const warnNotReady = createThrottledWarning("upstream not ready");

async function checkUpstream(request: Request, url: URL, timeoutMs: number): Promise<ErrorCode | null> {
  // Nobody's visit: the probe that started the check leaving does not end it.
  const deadline = startDeadline(null, timeoutMs);
  try {
    const response = await sendRequest(createExchange(request, "GET", url), deadline.signal);
    response.destroy();
    if ((response.statusCode ?? 0) >= 500) return "UPSTREAM_UNAVAILABLE";
    return null;
  } catch (error) {
    if (deadline.passed) return "UPSTREAM_TIMEOUT";
    warnNotReady({ err: error, ...getRequestFields(request) });
    return "UPSTREAM_UNAVAILABLE";
  } finally {
    deadline.dispose();
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
