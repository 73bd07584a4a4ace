import { randomUUID } from "node:crypto";
import type { Request as ExpressRequest, RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";
import type { ErrorCode } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import {
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
  readTracestate,
  type TraceContext,
} from "~/lib/trace-context.server";

export type RequestTrace = { span: TraceContext; parentSpanId?: string };

/** A request as metrics and tracing see it once answered. */
export type FinishedRequest = {
  method: string;
  path: string;
  /** The Remix route id that answered, or `static`, `refused`, `manifest` or `not_found`. */
  route: string;
  status: number;
  start: number;
  aborted: boolean;
  trace: RequestTrace;
  refusal?: ErrorCode;
};

type Options = {
  build: ServerBuild;
  trustProxy: boolean;
  /** Whether spans are recorded: a new trace's sampled flag. */
  recording: boolean;
  observers: ((request: FinishedRequest) => void)[];
};

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Gives every request an id (a caller's X-Request-Id when safe to log and echo) and a span, and
 * logs one line when it ends with both: method, path, status and timing, never headers, cookies
 * or query strings. The observers (metrics, tracing) hear of it then too.
 */
export function createRequestLog({ build, trustProxy, recording, observers }: Options): RequestHandler {
  const getRoute = createRouteLabeler(build);
  return (req, res, next) => {
    const start = performance.now();
    const incoming = req.headers["x-request-id"];
    const requestId = incoming && REQUEST_ID.test(incoming as string) ? (incoming as string) : randomUUID();
    req.headers["x-request-id"] = requestId;
    res.setHeader("X-Request-Id", requestId);
    const trace = startRequestTrace(req, trustProxy, recording);
    res.once("close", () => {
      const path = req.originalUrl.split("?", 1)[0]!;
      const aborted = !res.writableFinished;
      const status = res.statusCode;
      const durationMs = Math.round((performance.now() - start) * 10) / 10;
      const line = { requestId, traceId: trace.span.traceId, method: req.method, path, status, durationMs };
      logger.info(aborted ? { ...line, aborted } : line, "request");
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

/**
 * The caller's trace continued when a trusted proxy sent a valid `traceparent`, else a new one.
 * The request's own `traceparent` and `tracestate` become this span's, so Remix and every call
 * see it; what a visitor sends past no trusted proxy goes no further.
 */
function startRequestTrace(req: ExpressRequest, trustProxy: boolean, recording: boolean): RequestTrace {
  const caller = trustProxy ? parseTraceparent(req.headers.traceparent as string | undefined) : null;
  const span: TraceContext = caller
    ? {
        traceId: caller.traceId,
        spanId: newSpanId(),
        flags: caller.flags,
        state: readTracestate(req.headers.tracestate as string | undefined),
      }
    : { traceId: newTraceId(), spanId: newSpanId(), flags: recording ? "01" : "00" };
  req.headers.traceparent = formatTraceparent(span);
  if (span.state) req.headers.tracestate = span.state;
  else delete req.headers.tracestate;
  return { span, parentSpanId: caller?.parentId };
}

// Paths seen often are remembered; a visitor sending ever new paths fills at most this many.
const MAX_REMEMBERED = 1_000;
const MAX_REMEMBERED_LENGTH = 200;

/** The Remix route id that answers a path (its page's, for a data request), never the path itself. */
function createRouteLabeler(build: ServerBuild) {
  const routes = toRouteTree(build.routes);
  const manifestPath = `${build.basename ?? "/"}/__manifest`.replace(/\/+/g, "/");
  const remembered = new Map<string, string>();
  return (path: string) => {
    let label = remembered.get(path);
    if (label === undefined) {
      const pagePath = path === "/_root.data" ? "/" : path.replace(/\.data$/, "");
      label =
        path === manifestPath ? "manifest" : (matchRoutes(routes, pagePath)?.at(-1)?.route.id ?? "not_found");
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      if (path.length <= MAX_REMEMBERED_LENGTH) remembered.set(path, label);
    }
    return label;
  };
}

function toRouteTree(routes: ServerBuild["routes"], parentId?: string): AgnosticRouteObject[] {
  return Object.values(routes)
    .filter((route) => route.parentId === parentId)
    .map((route) => {
      const children = toRouteTree(routes, route.id);
      const base = { id: route.id, path: route.path, caseSensitive: route.caseSensitive };
      return route.index ? { ...base, index: true } : { ...base, children };
    });
}
