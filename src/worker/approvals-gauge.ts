/**
 * The approvals gauge: how many open runs of a task queue wait for an approval, read from visibility
 * (the runs' search attributes) while a worker with metrics runs. Visibility is the fleet's one count,
 * so each worker of a queue reports the same value and a worker's restart loses nothing; a count kept
 * by the workflows themselves could not say which worker's process held an open wait.
 */
import { Client } from '@temporalio/client';
import { Runtime, type NativeConnection } from '@temporalio/worker';
import { AGENT_SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import { METRIC } from '../contracts/telemetry';

/** How often the gauge is read again. */
export const APPROVALS_GAUGE_EVERY_MS = 10_000;

/** Starts reading the gauge now and every {@link APPROVALS_GAUGE_EVERY_MS}; returns the function that stops it. */
export function watchApprovalsWaiting(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
}): () => void {
  const client = new Client({ connection: options.connection, namespace: options.namespace });
  const gauge = Runtime.instance().metricMeter.createGauge(
    METRIC.approvalsWaiting,
    'int',
    'runs',
    'Open runs waiting for an approval',
  );
  const query =
    `${AGENT_SEARCH_ATTRIBUTES.awaitingApproval.name} = true AND ExecutionStatus = 'Running' ` +
    `AND TaskQueue = '${options.taskQueue.replace(/'/g, "\\'")}'`;
  const read = async (): Promise<void> => {
    try {
      const { count } = await client.workflow.count(query);
      gauge.set(count, { namespace: options.namespace, taskQueue: options.taskQueue });
    } catch {
      // Visibility did not answer: the gauge keeps its last value until the next read.
    }
  };
  void read();
  const timer = setInterval(() => void read(), APPROVALS_GAUGE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
