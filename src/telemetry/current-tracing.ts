/**
 * The process's running tracing, kept apart from the OpenTelemetry SDK that runs it, so that code
 * asking whether spans are sent loads none of the SDK.
 */
import type { IResource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TracesConfig } from './telemetry-config';

/** The running tracer provider of the process. */
export interface Tracing {
  readonly config: TracesConfig;
  readonly resource: IResource;
  /** Where the workflows' spans (arriving through the worker's sink) go, beside the process's own. */
  readonly processor: SpanProcessor;
  /**
   * Sends what is batched: true once it is sent, false when sending failed or did not end within
   * `withinMs` (then the requests still in flight are abandoned). Never rejects.
   */
  flush(withinMs?: number): Promise<boolean>;
}

let current: Tracing | undefined;

/** The tracing {@link startTracing} started in this process and has not stopped; undefined without. */
export const currentTracing = (): Tracing | undefined => current;

/** Records the process's tracing (tracing.ts, as it starts and stops it). */
export function setCurrentTracing(tracing: Tracing | undefined): void {
  current = tracing;
}
