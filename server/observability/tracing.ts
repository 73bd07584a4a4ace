import { onCallOutcome, type CallOutcomeEvent } from "~/api/client.server";
import type { Config } from "~/lib/config.server";
import { logger } from "~/lib/logger.server";
import type { TraceContext } from "~/lib/trace-context.server";
import packageJson from "../../package.json";
import type { FinishedRequest } from "./request-log";
import { createThrottledWarning } from "~/lib/logger.server";

export type Tracing = {
  recordRequest(request: FinishedRequest): void;
  /** Sends the spans still waiting; called once, on shutdown. */
  shutdown(): Promise<void>;
};

// Outcomes that end a call with an error; a mapped 4xx and a visitor leaving are not the call's fault.
const FAILED_OUTCOMES = new Set(["timeout", "unavailable", "bad_answer"]);

/**
 * Exports the request's span and each call's to the collector at OTEL_EXPORTER_OTLP_ENDPOINT
 * (OTLP/HTTP, JSON, batched), or returns undefined, having loaded nothing, when it is unset.
 * The ids are decided before a span is recorded (request-trace.ts, trace-context.server.ts), so
 * trace ids reach logs and calls whether or not export is on; a span is recorded once its work
 * has ended, under the ids it was given. Sampling follows the caller's flag; new traces are kept.
 */
export async function startTracing(config: Config): Promise<Tracing | undefined> {
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  const [api, sdk, exporterBase, httpExport, transformer, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/otlp-exporter-base"),
    import("@opentelemetry/otlp-exporter-base/node-http"),
    import("@opentelemetry/otlp-transformer"),
    import("@opentelemetry/resources"),
  ]);
  // A collector that is down must not flood the log.
  const warnNotExported = createThrottledWarning("tracing: spans not exported");
  const warn = (detail: string) => warnNotExported({ detail });
  const ignore = () => {};
  api.diag.setLogger(
    { error: warn, warn, info: ignore, debug: ignore, verbose: ignore },
    { logLevel: api.DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const ids = new GivenIds(new sdk.RandomIdGenerator());
  const provider = new sdk.BasicTracerProvider({
    resource: resourceFromAttributes({
      "service.name": process.env.OTEL_SERVICE_NAME || packageJson.name,
      "service.version": packageJson.version,
    }),
    idGenerator: ids,
    sampler: new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    spanProcessors: [
      new sdk.BatchSpanProcessor(
        new exporterBase.OTLPExporterBase(
          // OTLPTraceExporter, but for its reply: only the status is read, never the body, whatever
          // a collector sends (a large nested one would hold the loop while parsed).
          httpExport.createOtlpHttpExportDelegate(
            httpExport.convertLegacyHttpOptions(
              { url: `${config.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces` },
              "TRACES",
              "v1/traces",
              { "Content-Type": "application/json" },
            ),
            {
              serializeRequest: transformer.JsonTraceSerializer.serializeRequest,
              deserializeResponse: () => ({}),
            },
            "otlp_http_span_exporter",
            transformer.TraceExporterMetricsHelper,
            undefined,
          ),
        ),
      ),
    ],
  });
  const tracer = provider.getTracer(packageJson.name);

  function record(
    name: string,
    kind: number,
    span: TraceContext,
    parentSpanId: string | undefined,
    times: { start: number; end: number },
    attributes: Record<string, string | number>,
    failed: boolean,
  ) {
    const parent = parentSpanId
      ? api.trace.setSpanContext(api.ROOT_CONTEXT, {
          traceId: span.traceId,
          spanId: parentSpanId,
          traceFlags: Number.parseInt(span.flags, 16) & api.TraceFlags.SAMPLED,
        })
      : api.ROOT_CONTEXT;
    ids.give(span);
    const recorded = tracer.startSpan(name, { kind, startTime: times.start, attributes }, parent);
    if (failed) recorded.setStatus({ code: api.SpanStatusCode.ERROR });
    recorded.end(times.end);
  }

  const stopListening = onCallOutcome((event: CallOutcomeEvent) => {
    if (!event.trace || event.outcome === "retry" || event.outcome === "budget_exhausted") return;
    const end = performance.now();
    record(
      event.call,
      api.SpanKind.CLIENT,
      event.trace.span,
      event.trace.parentSpanId,
      { start: end - event.durationMs, end },
      { "http.request.method": event.method, "app.call.outcome": event.outcome },
      FAILED_OUTCOMES.has(event.outcome),
    );
  });
  logger.info({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT }, "exporting traces");

  return {
    recordRequest({ trace, method, path, route, status, start, aborted }) {
      record(
        `${method} ${route}`,
        api.SpanKind.SERVER,
        trace.span,
        trace.parentSpanId,
        { start, end: performance.now() },
        {
          "http.request.method": method,
          "http.route": route,
          "url.path": path,
          "http.response.status_code": status,
        },
        status >= 500 || aborted,
      );
    },
    async shutdown() {
      stopListening();
      await provider.shutdown();
    },
  };
}

/** The SDK's id generator, made to use the ids a span was already given. */
class GivenIds {
  private given: TraceContext | undefined;

  constructor(private readonly random: { generateTraceId(): string; generateSpanId(): string }) {}

  /** The ids the spans started from now on take (one span is started after each call). */
  give(span: TraceContext) {
    this.given = span;
  }

  generateTraceId() {
    return this.given?.traceId ?? this.random.generateTraceId();
  }

  generateSpanId() {
    return this.given?.spanId ?? this.random.generateSpanId();
  }
}
