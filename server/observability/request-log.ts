import type { RequestHandler } from "express";
import type { ErrorCode } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { getRequestId, trackInFlight } from "./request-context";
import { startRequestTrace, type RequestTrace } from "./request-trace";

/** A request as metrics and tracing see it once answered. */
export type FinishedRequest = {
  method: string;
  path: string;
  /** The Remix route id that answered, or `static`, `refused` or `not_found`. */
  route: string;
  status: number;
  /** `performance.now()` when the request came. */
  start: number;
  aborted: boolean;
  trace: RequestTrace;
  /** The catalogue code of the server's own error page, when it answered with one. */
  refusal?: ErrorCode;
};

type Options = {
  trustProxy: boolean;
  /** Whether spans are recorded: sets a new trace's sampled flag. */
  recording: boolean;
  getRoute: (path: string) => string;
  observers: ((request: FinishedRequest) => void)[];
};

/**
 * Gives every request an id (echoed as X-Request-Id and forwarded to Remix) and a span in a
 * trace, and logs one line when it ends, with both. Only method, path, status and timing are
 * logged: never headers, cookies or query strings. The observers (metrics, tracing) hear of the
 * request then too.
 */
export function createRequestLog({ trustProxy, recording, getRoute, observers }: Options): RequestHandler {
  return (req, res, next) => {
    const start = performance.now();
    const requestId = getRequestId(req.get("x-request-id"));
    req.headers["x-request-id"] = requestId;
    res.setHeader("X-Request-Id", requestId);
    const trace = startRequestTrace(req, trustProxy, recording);
    const done = trackInFlight(requestId);
    res.on("close", () => {
      done();
      const path = req.originalUrl.split("?")[0]!;
      const aborted = !res.writableFinished;
      const status = res.statusCode;
      logger.info(
        {
          requestId,
          traceId: trace.span.traceId,
          method: req.method,
          path,
          status,
          durationMs: Math.round((performance.now() - start) * 10) / 10,
          ...(aborted ? { aborted } : {}),
        },
        "request",
      );
      if (observers.length === 0) return;
      const refusal = res.locals.refusal as ErrorCode | undefined;
      const route =
        (res.locals.route as string | undefined) ?? (refusal && status < 500 ? "refused" : getRoute(path));
      const finished = { method: req.method, path, route, status, start, aborted, trace, refusal };
      for (const observe of observers) observe(finished);
    });
    next();
  };
}
