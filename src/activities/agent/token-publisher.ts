/**
 * Publishes a streaming model call's output to its run's stream, for watchers. Deltas of one block
 * are coalesced into one piece per interval and pieces are signalled in batches, so the history
 * grows with the length of the call, not with its token count. Best effort: a publishing failure
 * never fails the model call, whose answer is recorded durably either way.
 */
import { Context, log } from '@temporalio/activity';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import type { StreamEvent } from '../../shared/stream-events';
import { DEFAULT_TOKEN_BATCH_MS, TOKENS_TOPIC, type TokenDelta } from '../../shared/agent/watch';

/** Environment variable: ms between two token batches (signals) of one model call. */
export const TOKEN_BATCH_ENV = 'DURABLE_AGENTS_STREAM_BATCH_MS';

export interface TokenPublisher {
  push(event: StreamEvent): void;
  /** Sends what is left and stops; never throws. */
  close(): Promise<void>;
}

function batchInterval(env: NodeJS.ProcessEnv): number {
  const raw = env[TOKEN_BATCH_ENV];
  const ms = raw === undefined ? DEFAULT_TOKEN_BATCH_MS : Number(raw);
  return Number.isFinite(ms) && ms >= 50 ? ms : DEFAULT_TOKEN_BATCH_MS;
}

const NO_PUBLISHER: TokenPublisher = { push: () => undefined, close: async () => undefined };

export function openTokenPublisher(call: { seq: number; model: string }, env: NodeJS.ProcessEnv = process.env): TokenPublisher {
  const interval = batchInterval(env);
  let client: WorkflowStreamClient;
  try {
    client = WorkflowStreamClient.fromWithinActivity({ batchInterval: interval, maxRetryDuration: '30 seconds' });
  } catch (err) {
    // Outside a workflow's activity (or on a worker without a client) there is nobody to publish to.
    log.debug('token publishing unavailable', { error: String(err) });
    return NO_PUBLISHER;
  }
  const topic = client.topic<TokenDelta>(TOKENS_TOPIC);
  const attempt = Context.current().info.attempt;
  const tools = new Map<number, string>();
  let pending: (TokenDelta & { index: number }) | undefined;
  let pendingSince = 0;
  let failed = false;

  const send = () => {
    if (!pending) return;
    const { index: _index, ...delta } = pending;
    topic.publish(delta);
    pending = undefined;
  };
  const add = (index: number, kind: TokenDelta['kind'], text: string) => {
    if (!text) return;
    if (pending && (pending.index !== index || pending.kind !== kind)) send();
    if (!pending) {
      const tool = kind === 'tool_call' ? tools.get(index) : undefined;
      pending = { seq: call.seq, attempt, model: call.model, kind, text: '', index, ...(tool ? { tool } : {}) };
      pendingSince = Date.now();
    }
    pending.text += text;
    // Several pieces per batch keep the watcher's view moving between two signals.
    if (Date.now() - pendingSince >= interval / 4) send();
  };

  return {
    push(event) {
      if (failed) return;
      try {
        if (event.type === 'textDelta') add(event.index, 'text', event.delta);
        else if (event.type === 'thinkingDelta') add(event.index, 'thinking', event.delta);
        else if (event.type === 'toolCallStart') tools.set(event.index, event.name);
        else if (event.type === 'toolCallDelta') add(event.index, 'tool_call', event.delta);
      } catch (err) {
        failed = true;
        log.warn('token publishing stopped', { error: String(err) });
      }
    },
    async close() {
      try {
        send();
        await client[Symbol.asyncDispose]();
      } catch (err) {
        log.warn('token publishing failed', { error: String(err) });
      }
    },
  };
}
