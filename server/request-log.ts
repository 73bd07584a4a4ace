import type { RequestHandler } from "express";
import { logger } from "~/lib/logger.server";
import { getRequestId, trackInFlight } from "./request-context";
import { startRequestTrace } from "./request-trace";
import type { Tracing } from "./tracing";

type Options = { trustProxy: boolean; tracing?: Tracing };

/**
 * Gives every request an id (echoed as X-Request-Id and forwarded to Remix) and a span in a
 * trace, and logs one line when it ends, with both. Only method, path, status and timing are
 * logged: never headers, cookies or query strings. With tracing on, the request's span is
 * exported too.
 */
export function createRequestLog({ trustProxy, tracing }: Options): RequestHandler {
  return (req, res, next) => {
    const start = performance.now();
    const requestId = getRequestId(req.get("x-request-id"));
    req.headers["x-request-id"] = requestId;
    res.setHeader("X-Request-Id", requestId);
    const trace = startRequestTrace(req, trustProxy, tracing !== undefined);
    const done = trackInFlight(requestId);
    res.on("close", () => {
      done();
      const path = req.originalUrl.split("?")[0]!;
      const aborted = !res.writableFinished;
      logger.info(
        {
          requestId,
          traceId: trace.span.traceId,
          method: req.method,
          path,
          status: res.statusCode,
          durationMs: Math.round((performance.now() - start) * 10) / 10,
          ...(aborted ? { aborted } : {}),
        },
        "request",
      );
      tracing?.recordRequest({ trace, method: req.method, path, status: res.statusCode, start, aborted });
    });
    next();
  };
}
