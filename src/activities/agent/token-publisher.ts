/**
 * Publishes a streaming model call's output to its run's stream, for watchers. Deltas are joined
 * into pieces (TokenPieces) and pieces are signalled in batches, so the history
 * grows with the length of the call, not with its token count. Best effort: a publishing failure
 * never fails the model call, whose answer is recorded durably either way.
 */
import { Context, log } from '@temporalio/activity';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import type { StreamEvent } from '../../contracts/stream-events';
import { TokenPieces } from './token-pieces';
import { DEFAULT_TOKEN_BATCH_MS, TOKENS_TOPIC, type TokenDelta } from '../../contracts/watch-topics';

export interface TokenPublisher {
  push(event: StreamEvent): void;
  /** Sends what is left and stops; never throws. */
  close(): Promise<void>;
}

const NO_PUBLISHER: TokenPublisher = { push: () => undefined, close: async () => undefined };

/** A publisher for one model call; `interval` is the ms between two batches (the worker's config). */
export function openTokenPublisher(
  call: { seq: number; model: string },
  interval: number = DEFAULT_TOKEN_BATCH_MS,
): TokenPublisher {
  let client: WorkflowStreamClient;
  try {
    client = WorkflowStreamClient.fromWithinActivity({ batchInterval: interval, maxRetryDuration: '30 seconds' });
  } catch (err) {
    // Outside a workflow's activity (or on a worker without a client) there is nobody to publish to.
    log.debug('token publishing unavailable', { error: String(err) });
    return NO_PUBLISHER;
  }
  const topic = client.topic<TokenDelta>(TOKENS_TOPIC);
  // Several pieces per batch keep the watcher's view moving between two signals.
  const pieces = new TokenPieces({ ...call, attempt: Context.current().info.attempt }, interval / 4, (delta) =>
    topic.publish(delta),
  );
  return {
    push: (event) => pieces.push(event, Date.now()),
    async close() {
      try {
        pieces.flush();
        await client[Symbol.asyncDispose]();
      } catch (err) {
        log.warn('token publishing failed', { error: String(err) });
      }
    },
  };
}
