/**
 * The approvals gauge: how many open runs of a task queue wait for people, by what they wait for
 * (tool calls to approve, or a pev plan to decide on; {@link APPROVAL_WAIT}), read from visibility
 * (the runs' search attributes) while a worker with metrics runs. Visibility is the fleet's one count,
 * so each worker of a queue reports the same value and a worker's restart loses nothing; a count kept
 * by the workflows themselves could not say which worker's process held an open wait.
 */
import { Client } from '@temporalio/client';
import { Runtime, type NativeConnection } from '@temporalio/worker';
import type { PevPhase } from '../contracts/pev-progress';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../contracts/search-attributes';
import { APPROVAL_WAIT, METRIC, METRIC_LABEL } from '../contracts/telemetry';

/** How often the gauge is read again. */
const APPROVALS_GAUGE_EVERY_MS = 10_000;

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
    'Open runs waiting for people: tool calls to approve, or a plan to decide on',
  );
  const waiting =
    `${SA.awaitingApproval.name} = true AND ExecutionStatus = 'Running' ` +
    `AND TaskQueue = '${options.taskQueue.replace(/'/g, "\\'")}'`;
  // A pev run waiting for its plan's decision is in the phase that says so; any other wait is for tool calls.
  const confirming: PevPhase = 'confirming';
  const queries = {
    [APPROVAL_WAIT.toolCall]: `${waiting} AND ${SA.phase.name} != '${confirming}'`,
    [APPROVAL_WAIT.plan]: `${waiting} AND ${SA.phase.name} = '${confirming}'`,
  };
  const labels = { [METRIC_LABEL.namespace]: options.namespace, [METRIC_LABEL.taskQueue]: options.taskQueue };
  const read = async (): Promise<void> => {
    for (const [wait, query] of Object.entries(queries)) {
      try {
        const { count } = await client.workflow.count(query);
        gauge.set(count, { ...labels, wait });
      } catch {
        // Visibility did not answer: the gauge keeps its last value until the next read.
      }
    }
  };
  void read();
  const timer = setInterval(() => void read(), APPROVALS_GAUGE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
