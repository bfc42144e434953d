// Decides when the command and the service export traces: with OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set, and only then, a tracer provider with the OTLP HTTP
// (protobuf) exporter is registered; else nothing of the SDK is even loaded.
// Invariant: an endpoint that does not answer never delays or fails a Run; the flush at exit is bounded.

import { TRACE_EXPORT_TIMEOUT_MS, TRACE_FLUSH_AT_EXIT_MS } from "./limits.js";

/** Registered tracing: flush what is pending and stop, within TRACE_FLUSH_AT_EXIT_MS. */
export type Tracing = { readonly shutdown: () => Promise<void> };

type Environment = Readonly<Record<string, string | undefined>>;

/** True when the environment names an OTLP endpoint for traces (and the SDK is not disabled). */
export function tracingWanted(env: Environment): boolean {
  if (env["OTEL_SDK_DISABLED"]?.trim().toLowerCase() === "true") return false;
  return Boolean(env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]?.trim() || env["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim());
}

/**
 * Registers a tracer provider that batches spans to the OTLP endpoint the environment names (the
 * exporter reads the OTEL_EXPORTER_OTLP_* variables itself: endpoint, headers, timeout); undefined
 * when none is named. OTEL_SERVICE_NAME names the service (default "agentcage").
 */
export async function startTracing(env: Environment, version: () => string): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-proto"),
    import("@opentelemetry/resources"),
  ]);
  const exporter = new OTLPTraceExporter({ timeoutMillis: exportTimeoutMs(env) });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": env["OTEL_SERVICE_NAME"]?.trim() || "agentcage", "service.version": version() }),
    spanProcessors: [new BatchSpanProcessor(exporter, { exportTimeoutMillis: TRACE_EXPORT_TIMEOUT_MS })],
  });
  // The W3C trace context propagator and an AsyncLocalStorage context manager come with it.
  provider.register();
  return {
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, TRACE_FLUSH_AT_EXIT_MS)));
      try {
        await Promise.race([provider.shutdown().catch(() => undefined), late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The exporter's own timeout, OTEL_EXPORTER_OTLP_TRACES_TIMEOUT / _TIMEOUT when set, capped so a flush at exit fits its bound. */
function exportTimeoutMs(env: Environment): number {
  const named = Number(env["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"] || env["OTEL_EXPORTER_OTLP_TIMEOUT"] || Number.NaN);
  return Number.isFinite(named) && named > 0 ? Math.min(named, TRACE_EXPORT_TIMEOUT_MS) : TRACE_EXPORT_TIMEOUT_MS;
}
