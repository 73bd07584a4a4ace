import type { RequestHandler } from "express";
import { logger } from "~/lib/logger.server";
import { getRequestId, trackInFlight } from "./request-context";

/**
 * Gives every request an id (echoed as X-Request-Id and forwarded to Remix) and logs one line
 * when it ends. Only method, path, status and timing are logged: never headers, cookies or
 * query strings.
 */
export const requestLog: RequestHandler = (req, res, next) => {
  const start = performance.now();
  const requestId = getRequestId(req.get("x-request-id"));
  req.headers["x-request-id"] = requestId;
  res.setHeader("X-Request-Id", requestId);
  const done = trackInFlight(requestId);
  res.on("close", () => {
    done();
    logger.info(
      {
        requestId,
        method: req.method,
        path: req.originalUrl.split("?")[0],
        status: res.statusCode,
        durationMs: Math.round((performance.now() - start) * 10) / 10,
        ...(res.writableFinished ? {} : { aborted: true }),
      },
      "request",
    );
  });
  next();
};
