/** Anthropic Messages adapter, shared by `anthropic/…` and `minimax/…`. */
import Anthropic from '@anthropic-ai/sdk';
import type { StopReason, Usage } from '../../contracts/message-model';
import type { StreamEvent } from '../../contracts/stream-events';
import { EventBuilder } from '../event-builder';
import { llmFailure } from '../failures';
import { LLM_FAILURE } from '../../contracts/failure-types';
import { sdkClientOptions, type ProviderAdapter, type ResolvedCall } from '../adapter-types';
import { toAnthropicParams } from './anthropic-request';

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'stop',
  pause_turn: 'stop',
  tool_use: 'tool_use',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  stop_sequence: 'stop_sequence',
  refusal: 'refusal',
};

const anthropicStopReason = (raw: string | null | undefined): StopReason =>
  raw ? (STOP_REASONS[raw] ?? 'stop') : 'stop';

function usageOf(u: Partial<Anthropic.Usage> | Partial<Anthropic.MessageDeltaUsage> | undefined, base?: Usage): Usage {
  return {
    inputTokens: u?.input_tokens ?? base?.inputTokens ?? 0,
    outputTokens: u?.output_tokens ?? base?.outputTokens ?? 0,
    cacheReadTokens: u?.cache_read_input_tokens ?? base?.cacheReadTokens ?? 0,
    cacheWriteTokens: u?.cache_creation_input_tokens ?? base?.cacheWriteTokens ?? 0,
  };
}

async function* streamAnthropic(call: ResolvedCall): AsyncGenerator<StreamEvent> {
  const client = new Anthropic(sdkClientOptions(call));
  const events = await client.messages.create({ ...toAnthropicParams(call), stream: true }, { signal: call.signal });
  const builder = new EventBuilder(call);
  let usage: Usage | undefined;
  let rawStop: string | undefined;
  let finished = false;
  for await (const event of events) {
    switch (event.type) {
      case 'message_start':
        usage = usageOf(event.message.usage);
        yield* builder.start(event.message.id);
        break;
      case 'content_block_start': {
        const key = String(event.index);
        const block = event.content_block;
        if (block.type === 'text') yield* builder.text(key, block.text);
        else if (block.type === 'thinking')
          yield* builder.thinking(key, block.thinking, { signature: block.signature });
        else if (block.type === 'redacted_thinking') yield* builder.thinking(key, block.data, { redacted: true });
        else if (block.type === 'tool_use') yield* builder.toolCallStart(key, block.id, block.name);
        break;
      }
      case 'content_block_delta': {
        const key = String(event.index);
        const delta = event.delta;
        if (delta.type === 'text_delta') yield* builder.text(key, delta.text);
        else if (delta.type === 'thinking_delta') yield* builder.thinking(key, delta.thinking);
        else if (delta.type === 'signature_delta') yield* builder.thinking(key, '', { signature: delta.signature });
        else if (delta.type === 'input_json_delta') yield* builder.toolCallDelta(key, delta.partial_json);
        break;
      }
      case 'content_block_stop':
        yield* builder.end(String(event.index));
        break;
      case 'message_delta':
        usage = usageOf(event.usage, usage);
        rawStop = event.delta.stop_reason ?? rawStop;
        break;
      case 'message_stop':
        finished = true;
        break;
    }
  }
  if (!finished) {
    throw llmFailure(LLM_FAILURE.connection, `${call.provider.id}/${call.model}: stream ended before message_stop`);
  }
  yield* builder.finish(anthropicStopReason(rawStop), rawStop, usage ?? usageOf(undefined));
}

export const anthropicAdapter: ProviderAdapter = { stream: streamAnthropic };
