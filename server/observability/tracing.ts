import { onCallOutcome, type CallOutcomeEvent } from "~/api/client.server";
import type { Config } from "~/lib/config.server";
import { createThrottledWarning, logger } from "~/lib/logger.server";
import type { TraceContext } from "~/lib/trace-context.server";
import packageJson from "../../package.json";
import type { FinishedRequest } from "./request-log";

export type Tracing = NonNullable<Awaited<ReturnType<typeof startTracing>>>;

// Outcomes that end a call with an error; a mapped 4xx and a visitor leaving are not the call's fault.
const FAILED_OUTCOMES = new Set(["timeout", "unavailable", "bad_answer"]);

/**
 * Exports each request's span and each call's over OTLP/HTTP, once its work has ended, under the
 * ids it was given (decision 011); undefined, with the SDK not loaded, when no endpoint is set.
 */
export async function startTracing(config: Config) {
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  const [api, sdk, exporterBase, httpExport, transformer, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/otlp-exporter-base"),
    import("@opentelemetry/otlp-exporter-base/node-http"),
    import("@opentelemetry/otlp-transformer"),
    import("@opentelemetry/resources"),
  ]);
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
          // OTLPTraceExporter, but a collector's reply is judged by its status: its body is never parsed.
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
    recordRequest({ trace, method, path, route, status, start, aborted }: FinishedRequest) {
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
