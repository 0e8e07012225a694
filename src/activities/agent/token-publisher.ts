/**
 * Publishes a streaming model call's output to its run's stream, for watchers. Deltas are joined
 * into pieces (TokenPieces) and pieces are signalled in batches, one each `interval`, so the
 * history grows with the length of the call, not with its token count. The pieces of the last
 * interval are not signalled: the call returns them with its answer and the workflow publishes
 * them before it records the answer, so they reach watchers in order and cost no signal (a call
 * that answers within one interval sends none). Best effort: a publishing failure never fails the
 * model call, whose answer is recorded durably either way.
 */
import { Context, log } from '@temporalio/activity';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { PieceRedactor, type SecretSet } from '../../common/secrets';
import type { StreamEvent } from '../../contracts/stream-events';
import { TokenPieces } from './token-pieces';
import { DEFAULT_TOKEN_BATCH_MS, TOKENS_TOPIC, type TokenDelta } from '../../contracts/watch-topics';

export interface TokenPublisher {
  push(event: StreamEvent): void;
  /**
   * Stops; never throws. `answered`: the call has its answer, and the pieces not yet signalled are
   * returned for the answer to carry; otherwise (a failed attempt) they are signalled now.
   */
  close(answered: boolean): Promise<TokenDelta[]>;
}

const NO_PUBLISHER: TokenPublisher = { push: () => undefined, close: async () => [] };

const DELTA_OF_END = {
  text_end: 'text_delta',
  thinking_end: 'thinking_delta',
  tool_call_end: 'tool_call_delta',
} as const;

/**
 * Deltas with the worker's secrets replaced, a secret split across deltas included: each block's
 * last characters wait for its next delta, and its end sends them.
 */
function deltaRedactor(secrets: SecretSet): (event: StreamEvent) => StreamEvent[] {
  const blocks = new Map<number, PieceRedactor>();
  return (event) => {
    if (event.type === 'text_delta' || event.type === 'thinking_delta' || event.type === 'tool_call_delta') {
      const redactor = blocks.get(event.index) ?? new PieceRedactor(secrets);
      blocks.set(event.index, redactor);
      return [{ ...event, delta: redactor.push(event.delta) }];
    }
    if (event.type === 'text_end' || event.type === 'thinking_end' || event.type === 'tool_call_end') {
      const rest = blocks.get(event.index)?.flush();
      blocks.delete(event.index);
      return rest ? [{ type: DELTA_OF_END[event.type], index: event.index, delta: rest }, event] : [event];
    }
    return [event];
  };
}

/**
 * A publisher for one model call; `interval` is the ms between two batches (the worker's config),
 * `secrets` are replaced in every delta before it leaves the worker.
 */
export function openTokenPublisher(
  call: { seq: number; model: string },
  interval: number = DEFAULT_TOKEN_BATCH_MS,
  secrets?: SecretSet,
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
  let unsent: TokenDelta[] = [];
  // Pieces reach the client's buffer only here, each interval, and are sent at once: the client's
  // own flusher finds nothing to send, and pieces not handed over yet can go with the answer.
  const send = () => {
    unsent.forEach((delta, i) => topic.publish(delta, { forceFlush: i === unsent.length - 1 }));
    unsent = [];
  };
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  // Several pieces per batch keep the watcher's view moving between two signals.
  const pieces = new TokenPieces({ ...call, attempt: Context.current().info.attempt }, interval / 4, (delta) => {
    unsent.push(delta);
    if (!closed) timer ??= setInterval(send, interval);
  });
  const redact = secrets ? deltaRedactor(secrets) : (event: StreamEvent) => [event];
  return {
    push: (event) => {
      for (const clean of redact(event)) pieces.push(clean, Date.now());
    },
    async close(answered) {
      closed = true;
      clearInterval(timer);
      pieces.flush();
      const rest = answered ? unsent.splice(0) : [];
      send();
      try {
        // Batches already signalled reach the run before the answer does.
        await client[Symbol.asyncDispose]();
      } catch (err) {
        log.warn('token publishing failed', { error: String(err) });
      }
      return rest;
    },
  };
}
