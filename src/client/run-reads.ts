/**
 * What the server can tell about a run without a worker: whether anyone polls its task queue, the
 * result of a closed run (also when it closed as a failed workflow), and a state view built from a
 * closed run's result and start input.
 */
import {
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { STATE_VIEW_VERSION, type AgentResult, type AgentStateView } from '../contracts/agent-run';
import { fullCost } from '../contracts/message-model';
import { billingOf } from '../policy/billing';
import type { AgentWorkflowInput } from '../contracts/agent-workflows';
import { defaultLimits } from '../policy/limits';
import { isAgentResult } from '../policy/run-result';
import { modelNameProblem, parseModelRef } from '../policy/model-ref';
import { OPEN_STATUSES, type AgentStatus } from '../contracts/run-status';
import { RunClosedError, explain } from './client-errors';

/**
 * A poller seen this recently counts as a live worker. The server records a poller as its poll
 * arrives, and an idle worker's long poll lasts a minute, so a live worker is never older than
 * that; a worker gone longer is dead, though the server lists it for minutes more.
 */
const POLLER_FRESH_MS = 75_000;

/** How long the server may take to describe a task queue's pollers before the answer counts as yes. */
const DESCRIBE_POLLERS_MS = 3_000;

/**
 * Whether a worker has polled `taskQueue` for workflow tasks lately (what the Web UI's "No workers" reads).
 * A server that cannot tell in time (the time-skipping test server, a key without the permission) counts as yes.
 */
export async function hasWorkflowPollers(client: Client, taskQueue: string): Promise<boolean> {
  let pollers;
  try {
    ({ pollers } = await client.connection.withDeadline(Date.now() + DESCRIBE_POLLERS_MS, () =>
      client.workflowService.describeTaskQueue({ namespace: client.options.namespace, taskQueue: { name: taskQueue } }),
    ));
  } catch {
    return true;
  }
  const now = Date.now();
  return (pollers ?? []).some((p) => {
    const at = optionalTsToMs(p.lastAccessTime);
    return at === undefined || now - at < POLLER_FRESH_MS;
  });
}

/** What the server says of the execution `id`; refused in one line ({@link explain}) for an unknown id. */
export async function describeOrExplain(client: Client, id: string): Promise<WorkflowExecutionDescription> {
  try {
    return await client.workflow.getHandle(id).describe();
  } catch (err) {
    throw explain(err, id);
  }
}

/**
 * The result of a closed run: what it returned, or, for a run that closed as a failed workflow
 * with its result in the failure's details, that result (status `failed`). Any other close is a
 * {@link RunClosedError}.
 */
export async function resultOfRun(handle: WorkflowHandle, id: string): Promise<AgentResult> {
  try {
    return (await handle.result()) as AgentResult;
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause;
    if (cause instanceof ApplicationFailure) {
      const carried = cause.details?.find(isAgentResult);
      if (carried) return { ...carried, status: 'failed' };
    }
    if (cause instanceof TerminatedFailure)
      throw new RunClosedError(`run "${id}" was terminated${cause.message ? `: ${cause.message}` : ''}`, 'terminated');
    if (cause instanceof TimeoutFailure) throw new RunClosedError(`run "${id}" timed out`, 'timed_out');
    if (cause instanceof CancelledFailure) throw new RunClosedError(`run "${id}" was cancelled`, 'cancelled');
    throw new RunClosedError(`run "${id}" failed: ${cause?.message ?? err.message}`, 'failed');
  }
}

/** The input the newest run of the chain started with (its first history event). */
export const startInput = (client: Client, id: string): Promise<AgentWorkflowInput | undefined> =>
  workflowInput<AgentWorkflowInput>(client, id);

/** The first argument the newest execution of the workflow `id` started with (its first history event). */
export async function workflowInput<T>(client: Client, id: string): Promise<T | undefined> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: id },
    maximumPageSize: 1,
  });
  const payloads = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  if (!payloads?.length) return undefined;
  return decodeFromPayloadsAtIndex<T>(client.options.loadedDataConverter, 0, payloads);
}

/**
 * The state view of a run whose execution was ended from outside (terminated, timed out) while it
 * was in an open status: it asks for nothing any more, so its waiting calls are gone from the view.
 */
export interface EndedFromOutsideView extends AgentStateView {
  /** How the execution ended: `terminated`, `timed_out`. */
  closedAs: string;
  /** The status the run last had, which it can no longer leave. */
  lastStatus: AgentStatus;
}

/**
 * A closed run's view as its worker answered it: the view of a run ended from outside (its last
 * status an open one) says so and offers no decision; any other is as it was.
 */
export function closedView(view: AgentStateView, executionStatus: string): AgentStateView | EndedFromOutsideView {
  if (!OPEN_STATUSES.includes(view.status)) return view;
  return {
    ...view,
    status: 'stopped',
    closedAs: executionStatus.toLowerCase(),
    lastStatus: view.status,
    pendingApprovals: [],
    clientToolRequests: [],
    childApprovals: [],
    childClientToolRequests: [],
  };
}

/** A state view of a closed run, read from its result and start input: no worker needed, no events or messages. */
export interface ClosedRunView extends AgentStateView {
  /** Where the view came from: the run's result, since no worker was there to answer its state query. */
  answeredFrom: 'result';
}

export async function closedRunView(client: Client, handle: WorkflowHandle, id: string): Promise<ClosedRunView> {
  const result = await resultOfRun(handle, id);
  const input = await startInput(client, id).catch(() => undefined);
  const limits = input?.config.limits ?? defaultLimits();
  return {
    version: STATE_VIEW_VERSION,
    id,
    kind: result.kind,
    status: result.status,
    stopReason: result.stopReason,
    turn: result.turns,
    model: result.model,
    provider: modelNameProblem(result.model) ? '' : parseModelRef(result.model).provider,
    usage: result.usage,
    costUsd: result.costUsd,
    billing: result.billing ?? billingOf(result.usage, fullCost({ total: result.costUsd })),
    finalText: result.finalText,
    messages: [],
    pendingApprovals: [],
    clientToolRequests: [],
    limits: { ...limits, usedTurnsRatio: limits.maxTurns > 0 ? result.turns / limits.maxTurns : 0 },
    steeringQueued: 0,
    followUpsQueued: 0,
    events: [],
    droppedEvents: 0,
    ...(result.error ? { error: result.error } : {}),
    ...(result.stats ? { stats: result.stats } : {}),
    answeredFrom: 'result',
  };
}
