/**
 * The workflow interceptors every bundle of the project's workflows installs (see
 * src/common/preloaded-modules.ts): Temporal's OpenTelemetry interceptors, which continue the
 * starter's trace in the run, give the run's own spans (`agent/spans.ts`) their tracer and send
 * every span through the worker's `exporter` sink. Not a workflow.
 */
export { interceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
