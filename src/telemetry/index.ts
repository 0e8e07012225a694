/** What a process exports to an operator's observability stack: OpenTelemetry traces and Prometheus metrics. */
export {
  telemetryConfigOf,
  tracesConfigOf,
  telemetrySecrets,
  METRICS_PORT_ENV,
  METRICS_BIND_ENV,
  DEFAULT_METRICS_BIND,
  CAPTURE_CONTENT_ENV,
  DEFAULT_SERVICE_NAME,
  type TelemetryConfig,
  type TracesConfig,
  type MetricsConfig,
  type MetricsFlags,
  type OtlpProtocol,
} from './telemetry-config';
export { startTracing, stopTracing, FLUSH_AT_STOP_MS, type Tracing } from './tracing';
export { currentTracing } from './current-tracing';
export { RedactingSpanExporter, redactSpan } from './redacting-exporter';
export { tracingClientInterceptors, tracingActivityInterceptors, workflowSpanSink } from './temporal-tracing';
export { runtimeTelemetryOptions, runMetricsSink } from './runtime-metrics';
