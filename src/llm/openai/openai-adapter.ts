/** OpenAI Chat Completions adapter, shared by `openai/…` and `openai-compatible/…`. */
import OpenAI from 'openai';
import { LLM_FAILURE } from '../../contracts/failure-types';
import type { StopReason, Usage } from '../../contracts/message-model';
import { type StreamEvent } from '../../contracts/stream-events';
import { EventBuilder } from '../event-builder';
import { llmFailure } from '../failures';
import { sdkClientOptions, type ProviderAdapter, type ResolvedCall } from '../adapter-types';
import { toOpenAIParams } from './openai-request';
import { isPlainObject } from '../../common/type-helpers';

function client(call: ResolvedCall): OpenAI {
  return new OpenAI({
    ...sdkClientOptions(call),
    // OpenAI's organization and project ids (read from env by default) are not for other servers.
    ...(call.provider.id === 'openai' ? {} : { organization: null, project: null }),
  });
}

const STOP_REASONS: Record<string, StopReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filter',
};

/** Some compatible servers end a tool-calling turn with `stop`; the calls decide. */
function stopReason(raw: string | null | undefined, hasToolCalls: boolean, refused: boolean): StopReason {
  if (refused) return 'refusal';
  const mapped = raw ? (STOP_REASONS[raw] ?? 'stop') : 'stop';
  return mapped === 'stop' && hasToolCalls ? 'tool_use' : mapped;
}

/** OpenAI counts cached tokens inside `prompt_tokens`; the neutral model counts them apart. */
function usageOf(u: OpenAI.CompletionUsage | null | undefined): Usage {
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (u?.prompt_tokens ?? 0) - cached),
    outputTokens: u?.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** Reasoning as compatible servers send it: DeepSeek/vLLM `reasoning_content`, Ollama `reasoning`. */
function reasoningOf(m: object | null | undefined): string {
  const r = m as { reasoning_content?: unknown; reasoning?: unknown } | null | undefined;
  if (typeof r?.reasoning_content === 'string') return r.reasoning_content;
  return typeof r?.reasoning === 'string' ? r.reasoning : '';
}

/** Gemini's OpenAI endpoint puts a thought signature in `extra_content` on each tool call. */
function extraContentOf(call: object): Record<string, unknown> | undefined {
  const extra = (call as { extra_content?: unknown }).extra_content;
  return isPlainObject(extra) ? extra : undefined;
}

const missingId = (index: number, timestamp: number): string => `call_${timestamp.toString(36)}_${index}`;

async function* streamOpenAI(call: ResolvedCall): AsyncGenerator<StreamEvent> {
  const chunks = await client(call).chat.completions.create(
    { ...toOpenAIParams(call), stream: true, stream_options: { include_usage: true } },
    { signal: call.signal },
  );
  const builder = new EventBuilder(call);
  let usage: OpenAI.CompletionUsage | undefined;
  let raw: string | undefined;
  let refused = false;
  const toolKeys = new Set<string>();
  for await (const chunk of chunks) {
    yield* builder.start(chunk.id);
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    const reasoning = reasoningOf(delta);
    if (reasoning) yield* builder.thinking('reasoning', reasoning);
    if (delta.content) yield* builder.text('text', delta.content);
    if (delta.refusal) {
      refused = true;
      yield* builder.text('text', delta.refusal);
    }
    for (const tc of delta.tool_calls ?? []) {
      // Some compatible servers omit `index`: a chunk with an id or a name starts a new call, any
      // other continues the last one.
      const starts = Boolean(tc.id || tc.function?.name);
      const index = typeof tc.index === 'number' ? tc.index : starts ? toolKeys.size : Math.max(0, toolKeys.size - 1);
      const key = `tool:${index}`;
      if (!toolKeys.has(key)) {
        toolKeys.add(key);
        yield* builder.toolCallStart(key, tc.id || missingId(index, builder.timestamp), tc.function?.name ?? '');
      }
      const extra = extraContentOf(tc);
      if (extra) builder.toolCallExtras(key, { extra_content: extra });
      if (tc.function?.arguments) yield* builder.toolCallDelta(key, tc.function.arguments);
    }
    if (choice.finish_reason) raw = choice.finish_reason;
  }
  if (raw === undefined) {
    throw llmFailure(LLM_FAILURE.connection, `${call.provider.id}/${call.model}: stream ended without a finish_reason`);
  }
  yield* builder.end('reasoning');
  yield* builder.end('text');
  yield* builder.finish(stopReason(raw, toolKeys.size > 0, refused), raw, usageOf(usage));
}

export const openaiAdapter: ProviderAdapter = { stream: streamOpenAI };
