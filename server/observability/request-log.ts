import { randomUUID } from "node:crypto";
import type { Request, RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";
import type { ErrorCode } from "~/lib/errors";
import type { TraceContext } from "~/lib/trace-context.server";
import type { AppEntry } from "../app";

/** A request answered; `route` is a route id, `static`, `refused`, `manifest` or `not_found`. */
export type FinishedRequest = {
  method: string;
  path: string;
  route: string;
  status: number;
  start: number;
  aborted: boolean;
  trace: { span: TraceContext; parentSpanId?: string };
  refusal?: ErrorCode;
};

type Options = {
  build: ServerBuild;
  trustProxy: boolean;
  recording: boolean;
  observers: ((request: FinishedRequest) => void)[];
};

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const MAX_REMEMBERED = 1_000;

/** An id and a span for every request, and a log line at its end: no headers, cookies, queries. */
export function createRequestLog({
  build,
  trustProxy,
  recording,
  observers,
}: Options): RequestHandler {
  const getRoute = createRouteLabeler(build);
  const { logger, traceContext } = build.entry.module as unknown as AppEntry;
  return (req, res, next) => {
    const start = performance.now();
    const incoming = req.headers["x-request-id"] as string | undefined;
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.headers["x-request-id"] = requestId;
    res.setHeader("X-Request-Id", requestId);
    const trace = startTrace(traceContext, req, trustProxy, recording);
    res.once("close", () => {
      const path = req.originalUrl.split("?", 1)[0]!;
      const aborted = !res.writableFinished;
      const status = res.statusCode;
      const durationMs = Math.round((performance.now() - start) * 10) / 10;
      const line = {
        requestId,
        traceId: trace.span.traceId,
        method: req.method,
        path,
        status,
        durationMs,
      };
      logger.info(aborted ? { ...line, aborted } : line, "request");
      if (observers.length === 0) return;
      const refusal = res.locals.refusal as ErrorCode | undefined;
      const route = res.locals.route ?? (refusal && status < 500 ? "refused" : getRoute(path));
      const finished = { method: req.method, path, route, status, start, aborted, trace, refusal };
      for (const observe of observers) observe(finished);
    });
    next();
  };
}

/** The trusted proxy's trace continued, else a new one, written into the request for Remix. */
function startTrace(
  traceContext: AppEntry["traceContext"],
  req: Request,
  trustProxy: boolean,
  recording: boolean,
): FinishedRequest["trace"] {
  const { traceparent, tracestate } = req.headers as Record<string, string | undefined>;
  const caller = trustProxy ? traceContext.parseTraceparent(traceparent) : null;
  const span = caller
    ? {
        traceId: caller.traceId,
        flags: caller.flags,
        state: traceContext.readTracestate(tracestate),
      }
    : { traceId: traceContext.newTraceId(), flags: recording ? "01" : "00" };
  const started = { ...span, spanId: traceContext.newSpanId() };
  req.headers.traceparent = traceContext.formatTraceparent(started);
  if (started.state) req.headers.tracestate = started.state;
  else delete req.headers.tracestate;
  return { span: started, parentSpanId: caller?.parentId };
}

function createRouteLabeler(build: ServerBuild) {
  const routes = toRouteTree(build.routes);
  const manifestPath = `${build.basename ?? "/"}/__manifest`.replace(/\/+/g, "/");
  const remembered = new Map<string, string>();
  return (path: string) => {
    let label = remembered.get(path);
    if (label === undefined) {
      const pagePath = path === "/_root.data" ? "/" : path.replace(/\.data$/, "");
      label =
        path === manifestPath
          ? "manifest"
          : (matchRoutes(routes, pagePath)?.at(-1)?.route.id ?? "not_found");
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      if (path.length <= 200) remembered.set(path, label);
    }
    return label;
  };
}

function toRouteTree(routes: ServerBuild["routes"], parentId?: string): AgnosticRouteObject[] {
  return Object.values(routes)
    .filter((route) => route.parentId === parentId)
    .map((route) => {
      const base = { id: route.id, path: route.path, caseSensitive: route.caseSensitive };
      return route.index
        ? { ...base, index: true }
        : { ...base, children: toRouteTree(routes, route.id) };
    });
}
