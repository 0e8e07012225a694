/**
 * The SDK runtime's metrics: one Prometheus endpoint per process (`/metrics`) with the SDK's own
 * series (`temporal_*`) and the project's (`durable_agents_*`, see `contracts/telemetry.ts`), which
 * activities and workflows record through the SDK's metric meter.
 */
import type { TelemetryOptions } from '@temporalio/worker';
import { METRIC_BUCKETS } from '../contracts/telemetry';
import type { MetricsConfig } from './telemetry-config';

/** The runtime's telemetry options: a Prometheus endpoint when `metrics` is set, else none. */
export function runtimeTelemetryOptions(metrics: MetricsConfig | undefined): TelemetryOptions | undefined {
  if (!metrics) return undefined;
  return {
    metrics: {
      prometheus: { bindAddress: metrics.bindAddress, histogramBucketOverrides: { ...METRIC_BUCKETS } },
    },
  };
}
