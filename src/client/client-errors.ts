/** Errors of the agent client: one readable line each, for the CLI to print as they are. */
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

/** Misuse or a refusal the caller can act on (unknown id, bad arguments, a refused decision). */
export class AgentClientError extends Error {
  override name = 'AgentClientError';
}

/** Turns SDK errors into {@link AgentClientError}s naming the run. */
export function explain(err: unknown, id: string): unknown {
  if (err instanceof AgentClientError) return err;
  if (err instanceof Error && /already completed/i.test(err.message))
    return new AgentClientError(`run "${id}" has already ended`);
  if (err instanceof WorkflowNotFoundError) return new AgentClientError(`no agent run with id "${id}"`);
  if (err instanceof WorkflowUpdateFailedError) {
    const cause =
      err.cause instanceof ApplicationFailure || err.cause instanceof Error ? err.cause.message : err.message;
    return new AgentClientError(`refused by run "${id}": ${cause}`);
  }
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
    return new AgentClientError(`run "${id}" did not answer the update in time; retry`);
  return err;
}
