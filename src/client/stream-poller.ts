/**
 * Follows a run's stream (`@temporalio/workflow-streams`' poll protocol) across continue-as-new.
 * Every poll goes to the newest run of the chain; when a poll finds no run to answer it (the run
 * is draining, has just continued as new, or has ended), the chain's status decides: poll again
 * while it runs, stop once it has ended.
 */
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decodePayloadWire, workflowStreamPollUpdate, type PollResult } from '@temporalio/workflow-streams/workflow';

export interface StreamEntry {
  topic: string;
  offset: number;
  data: unknown;
}

/** Pause between polls that came back with everything there was. */
const POLL_COOLDOWN_MS = 100;
/** Pause before polling a run that was between runs or draining. */
const RETRY_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Failures that mean "no run answered this poll", as opposed to a refusal or a broken connection. */
function noRunAnswered(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    return err.cause.type === 'StreamDraining' || err.cause.type === 'AcceptedUpdateCompletedWorkflow';
  }
  return /already completed/i.test(err instanceof Error ? err.message : '');
}

export async function* followRunStream(
  client: Client,
  workflowId: string,
  options: { topics: string[]; fromOffset: number; isRunning: () => Promise<boolean> },
): AsyncGenerator<StreamEntry, void, undefined> {
  const handle = client.workflow.getHandle(workflowId);
  const converter = client.options.loadedDataConverter.payloadConverter;
  let offset = options.fromOffset;
  for (;;) {
    let result: PollResult;
    try {
      result = await handle.executeUpdate(workflowStreamPollUpdate, {
        args: [{ topics: options.topics, from_offset: offset }],
      });
    } catch (err) {
      if (
        err instanceof WorkflowUpdateFailedError &&
        err.cause instanceof ApplicationFailure &&
        err.cause.type === 'TruncatedOffset'
      ) {
        // Fell behind what the run keeps: go on from the oldest entry it still has.
        offset = 0;
        continue;
      }
      if (!noRunAnswered(err)) throw err;
      if (!(await options.isRunning())) return;
      await sleep(RETRY_MS);
      continue;
    }
    for (const item of result.items)
      yield { topic: item.topic, offset: item.offset, data: converter.fromPayload(decodePayloadWire(item.data)) };
    offset = result.next_offset;
    if (!result.more_ready) await sleep(POLL_COOLDOWN_MS);
  }
}
