import type { Request as ExpressRequest } from "express";
import {
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
  readTracestate,
  type TraceContext,
} from "~/lib/trace-context.server";

export type RequestTrace = { span: TraceContext; parentSpanId?: string };

/**
 * The request's span: the caller's trace continued when a trusted proxy sent a valid
 * `traceparent`, otherwise a new trace (`recorded` sets its sampled flag). The request's own
 * `traceparent` and `tracestate` are replaced with this span, so Remix and every call see the
 * server's span; what a visitor sends past no trusted proxy goes no further.
 */
export function startRequestTrace(req: ExpressRequest, trustProxy: boolean, recorded: boolean): RequestTrace {
  const caller = trustProxy ? parseTraceparent(req.headers.traceparent as string | undefined) : null;
  const span: TraceContext = caller
    ? {
        traceId: caller.traceId,
        spanId: newSpanId(),
        flags: caller.flags,
        state: readTracestate(req.headers.tracestate as string | undefined),
      }
    : { traceId: newTraceId(), spanId: newSpanId(), flags: recorded ? "01" : "00" };
  req.headers.traceparent = formatTraceparent(span);
  if (span.state) req.headers.tracestate = span.state;
  else delete req.headers.tracestate;
  return { span, parentSpanId: caller?.parentId };
}
