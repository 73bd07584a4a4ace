import type { CallOutcomeEvent } from "~/api/client.server";
import type { Config } from "~/lib/config.server";
import type { TraceContext } from "~/lib/trace-context.server";
import type { AppEntry } from "../app";
import packageJson from "../../package.json";
import type { FinishedRequest } from "./request-log";

// A mapped 4xx or a visitor leaving is not the call's fault.
const FAILED_OUTCOMES = new Set(["timeout", "unavailable", "bad_answer"]);

/** Exports spans once their work has ended, under the ids already given (decision 011). */
export async function startTracing(config: Config, app: AppEntry) {
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  const { createThrottledWarning, logger, onCallOutcome } = app;
  const [api, sdk, exporterBase, httpExport, transformer, { resourceFromAttributes }] =
    await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/sdk-trace-base"),
      import("@opentelemetry/otlp-exporter-base"),
      import("@opentelemetry/otlp-exporter-base/node-http"),
      import("@opentelemetry/otlp-transformer"),
      import("@opentelemetry/resources"),
    ]);
  const warnNotExported = createThrottledWarning("tracing: spans not exported");
  const warn = (detail: string) => warnNotExported({ detail });
  const diagLogger = { error: warn, warn, info() {}, debug() {}, verbose() {} };
  api.diag.setLogger(diagLogger, {
    logLevel: api.DiagLogLevel.WARN,
    suppressOverrideMessage: true,
  });
  const exportOptions = httpExport.convertLegacyHttpOptions(
    { url: `${config.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces` },
    "TRACES",
    "v1/traces",
    { "Content-Type": "application/json" },
  );
  // The exporter's timeout starts again with each byte, so a collector trickling its answer would
  // hold an export for ever: each export has a connection of its own, closed at that timeout.
  exportOptions.agentFactory = async (protocol) => {
    const { Agent } =
      protocol === "https:" ? await import("node:https") : await import("node:http");
    const agent = new Agent({ keepAlive: false });
    const connect = agent.createConnection.bind(agent);
    agent.createConnection = (options, callback) => {
      const socket = connect(options, callback);
      const timer = setTimeout(() => socket?.destroy(), exportOptions.timeoutMillis);
      socket?.once("close", () => clearTimeout(timer));
      return socket;
    };
    return agent;
  };
  // The SDK's id generator, made to give a span the ids it was started with (one span at a time).
  let given: TraceContext | undefined;
  const random = new sdk.RandomIdGenerator();
  const exporter = new exporterBase.OTLPExporterBase(
    // OTLPTraceExporter, but a collector's reply is judged by its status, its body unread.
    httpExport.createOtlpHttpExportDelegate(
      exportOptions,
      {
        serializeRequest: transformer.JsonTraceSerializer.serializeRequest,
        deserializeResponse: () => ({}),
      },
      "otlp_http_span_exporter",
      transformer.TraceExporterMetricsHelper,
      undefined,
    ),
  );
  // A failed export's error carries the collector's whole answer (up to 4 MiB), which the
  // processor would stringify to report it: it goes on with its message only.
  const send: typeof exporter.export = (spans, done) =>
    exporter.export(spans, (result) =>
      done(result.error ? { ...result, error: new Error(result.error.message) } : result),
    );
  const provider = new sdk.BasicTracerProvider({
    resource: resourceFromAttributes({
      "service.name": config.OTEL_SERVICE_NAME ?? packageJson.name,
      "service.version": packageJson.version,
    }),
    idGenerator: {
      generateTraceId: () => given?.traceId ?? random.generateTraceId(),
      generateSpanId: () => given?.spanId ?? random.generateSpanId(),
    },
    sampler: new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        export: send,
        shutdown: () => exporter.shutdown(),
        forceFlush: () => exporter.forceFlush(),
      }),
    ],
  });
  const tracer = provider.getTracer(packageJson.name);

  function record(
    name: string,
    kind: number,
    { span, parentSpanId }: FinishedRequest["trace"],
    start: number,
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
    given = span;
    const recorded = tracer.startSpan(name, { kind, startTime: start, attributes }, parent);
    if (failed) recorded.setStatus({ code: api.SpanStatusCode.ERROR });
    recorded.end(performance.now());
  }

  const stopListening = onCallOutcome((event: CallOutcomeEvent) => {
    if (!event.trace || event.outcome === "retry" || event.outcome === "budget_exhausted") return;
    const attributes = { "http.request.method": event.method, "app.call.outcome": event.outcome };
    const start = performance.now() - event.durationMs;
    record(
      event.call,
      api.SpanKind.CLIENT,
      event.trace,
      start,
      attributes,
      FAILED_OUTCOMES.has(event.outcome),
    );
  });
  logger.info({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT }, "exporting traces");

  return {
    recordRequest({ trace, method, path, route, status, start, aborted }: FinishedRequest) {
      const attributes = {
        "http.request.method": method,
        "http.route": route,
        "url.path": path,
        "http.response.status_code": status,
      };
      record(
        `${method} ${route}`,
        api.SpanKind.SERVER,
        trace,
        start,
        attributes,
        status >= 500 || aborted,
      );
    },
    async shutdown() {
      stopListening();
      await provider.shutdown();
    },
  };
}
