/**
 * The SDK runtime's metrics: one Prometheus endpoint per process (`/metrics`) with the SDK's own
 * series (`temporal_*`) and the project's (`durable_agents_*`, see `contracts/telemetry.ts`), which
 * activities and the worker record through the runtime's metric meter, labelled as the SDK's
 * Prometheus series are ({@link METRIC_LABEL}).
 */
import { Runtime, type InjectedSinks, type TelemetryOptions } from '@temporalio/worker';
import { METRIC, METRIC_BUCKETS, METRIC_LABEL, type RunMetricsSinks } from '../contracts/telemetry';
import type { MetricsConfig } from './telemetry-config';

/** The runtime's telemetry options: the Prometheus endpoint of `metrics`. */
export function runtimeTelemetryOptions(metrics: MetricsConfig): TelemetryOptions {
  return {
    metrics: {
      prometheus: { bindAddress: metrics.bindAddress, histogramBucketOverrides: { ...METRIC_BUCKETS } },
    },
  };
}

/**
 * The worker's `runMetrics` sink: the runs' ended-run counter, labelled with the run's namespace,
 * task queue and workflow type beside the labels the workflow gives. Not called while a workflow replays.
 */
export function runMetricsSink(): InjectedSinks<RunMetricsSinks> {
  return {
    runMetrics: {
      runEnded: {
        fn: (info, labels) => {
          const runs = Runtime.instance().metricMeter.createCounter(METRIC.runs, 'runs', 'Ended agent runs');
          runs.add(1, {
            [METRIC_LABEL.namespace]: info.namespace,
            [METRIC_LABEL.taskQueue]: info.taskQueue,
            [METRIC_LABEL.workflowType]: info.workflowType,
            ...labels,
          });
        },
        callDuringReplay: false,
      },
    },
  };
}
