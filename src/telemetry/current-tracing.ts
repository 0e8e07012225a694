/**
 * The process's running tracing, kept apart from the OpenTelemetry SDK that runs it, so that code
 * asking whether spans are sent loads none of the SDK.
 */
import type { Tracing } from './tracing';

let current: Tracing | undefined;

/** The tracing {@link startTracing} started in this process and has not stopped; undefined without. */
export const currentTracing = (): Tracing | undefined => current;

/** Records the process's tracing (tracing.ts, as it starts and stops it). */
export function setCurrentTracing(tracing: Tracing | undefined): void {
  current = tracing;
}
