/** What a process exports to an operator's observability stack: OpenTelemetry traces and Prometheus metrics. */
export {
  telemetryConfigOf,
  tracesConfigOf,
  METRICS_PORT_ENV,
  METRICS_BIND_ENV,
  CAPTURE_CONTENT_ENV,
  type TelemetryConfig,
} from './telemetry-config';
export { startTracing, stopTracing, FLUSH_AT_STOP_MS } from './tracing';
export { currentTracing, type Tracing } from './current-tracing';
export { tracingClientInterceptors, tracingActivityInterceptors, workflowSpanSink } from './temporal-tracing';
export { runtimeTelemetryOptions, runMetricsSink } from './runtime-metrics';
