/** Errors of the agent client: one readable line each, for the CLI to print as they are. */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';

/** Misuse or a refusal the caller can act on (unknown id, bad arguments, a refused decision). */
export class AgentClientError extends Error {
  override name = 'AgentClientError';
}

/** A payload over the server's size limit, refused before it was sent. */
export class PayloadTooLargeError extends AgentClientError {
  override name = 'PayloadTooLargeError';
}

/** Nobody polls the run's task queue, so what was asked needs a worker that is not there. */
export class NoWorkerError extends AgentClientError {
  override name = 'NoWorkerError';
  constructor(
    message: string,
    readonly taskQueue: string,
  ) {
    super(message);
  }
}

/** How a run closed without a result: terminated, timed out, cancelled before it could answer, or failed. */
export type ClosedAs = 'terminated' | 'timed_out' | 'cancelled' | 'failed';

/** The run closed without returning a result (see {@link ClosedAs}). */
export class RunClosedError extends AgentClientError {
  override name = 'RunClosedError';
  constructor(
    message: string,
    readonly closedAs: ClosedAs,
  ) {
    super(message);
  }
}

/** The refusal of what only a run that has not ended takes; `status`: Temporal's status of its execution. */
export const alreadyEnded = (id: string, status: string): AgentClientError =>
  new AgentClientError(`run "${id}" has already ended (${status.toLowerCase()})`);

/** The line that tells how to start a worker for `taskQueue`. */
export const startWorkerHint = (taskQueue: string): string =>
  `start one with \`durable-agents worker --task-queue ${taskQueue}\``;

/** The refusal of what needs a worker on `taskQueue` now (`task`: what nobody can do, e.g. "take X for run Y"). */
export const noWorkerFor = (taskQueue: string, task: string): NoWorkerError =>
  new NoWorkerError(
    `no worker is polling task queue "${taskQueue}", so nobody can ${task} now: ${startWorkerHint(taskQueue)}`,
    taskQueue,
  );

/** Turns SDK errors into {@link AgentClientError}s naming the run. */
export function explain(err: unknown, id: string): unknown {
  if (err instanceof AgentClientError) return err;
  if (err instanceof WorkflowExecutionAlreadyStartedError)
    return new AgentClientError(`a run with id "${id}" already exists: choose another id`);
  if (err instanceof Error && /already completed/i.test(err.message))
    return new AgentClientError(`run "${id}" has already ended`);
  if (err instanceof WorkflowNotFoundError) return new AgentClientError(`no agent run with id "${id}"`);
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause instanceof Error ? err.cause.message : err.message;
    return new AgentClientError(`refused by run "${id}": ${cause}`);
  }
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
    return new AgentClientError(`run "${id}" did not answer the update in time; retry`);
  const missingAttribute = err instanceof Error && /no mapping defined for search attribute (\w+)/i.exec(err.message);
  if (missingAttribute)
    return new AgentClientError(
      `the namespace lacks the search attribute ${missingAttribute[1]}: start \`durable-agents worker\` once ` +
        '(it registers them) or register it with `temporal operator search-attribute create`',
    );
  return err;
}
