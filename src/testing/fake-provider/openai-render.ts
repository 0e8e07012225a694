/** OpenAI Chat Completions wire format: whole responses, SSE chunks and error bodies. */
import { WIRE_STOP_REASONS, pieces, type PreparedReply } from './prepare';
import type { SseEvent } from './anthropic-render';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};

export function openaiErrorBody(
  status: number,
  message: string,
  errorType?: string,
  code?: string,
  param: string | null = null,
): Record<string, unknown> {
  return { error: { message, type: errorType ?? ERROR_TYPES[status] ?? 'server_error', param, code: code ?? null } };
}

function usageJson(reply: PreparedReply): Record<string, unknown> {
  const prompt = reply.usage.input + reply.usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: reply.usage.output,
    total_tokens: prompt + reply.usage.output,
    prompt_tokens_details: { cached_tokens: reply.usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

type ToolCall = Extract<PreparedReply['blocks'][number], { type: 'tool_call' }>;

function parts(reply: PreparedReply): { text: string; reasoning: string; calls: ToolCall[] } {
  let text = '';
  let reasoning = '';
  const calls: ToolCall[] = [];
  for (const b of reply.blocks) {
    if (b.type === 'text') text += b.text;
    else if (b.type === 'thinking') reasoning += b.thinking;
    else if (b.type === 'tool_call') calls.push(b);
  }
  return { text, reasoning, calls };
}

/** Gemini's OpenAI endpoint carries thought signatures this way. */
const extraContent = (c: { thoughtSignature?: string }): Record<string, unknown> =>
  c.thoughtSignature ? { extra_content: { google: { thought_signature: c.thoughtSignature } } } : {};

export function openaiCompletion(
  reply: PreparedReply,
  id: string,
  model: string,
  created: number,
): Record<string, unknown> {
  const { text, reasoning, calls } = parts(reply);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && calls.length ? null : text,
    refusal: null,
    annotations: [],
  };
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length) {
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.raw },
      ...extraContent(c),
    }));
  }
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: WIRE_STOP_REASONS[reply.stop].openai }],
    usage: usageJson(reply),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

export function openaiChunks(
  reply: PreparedReply,
  id: string,
  model: string,
  created: number,
  includeUsage: boolean,
): SseEvent[] {
  const event = (rest: Record<string, unknown>): SseEvent => ({
    data: JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_fake',
      ...rest,
    }),
  });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseEvent =>
    event({ choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const { text, reasoning, calls } = parts(reply);
  const out: SseEvent[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of pieces(reasoning)) out.push(chunk({ reasoning_content: piece }));
  for (const piece of pieces(text)) out.push(chunk({ content: piece }));
  const omit = new Set(reply.omitToolCallFields ?? []);
  calls.forEach((c, index) => {
    const at = omit.has('index') ? {} : { index };
    const id = omit.has('id') ? {} : { id: c.id };
    out.push(
      chunk({
        tool_calls: [{ ...at, ...id, type: 'function', function: { name: c.name, arguments: '' }, ...extraContent(c) }],
      }),
    );
    for (const piece of pieces(c.raw, 5)) out.push(chunk({ tool_calls: [{ ...at, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, WIRE_STOP_REASONS[reply.stop].openai));
  if (includeUsage) out.push(event({ choices: [], usage: usageJson(reply) }));
  out.push({ data: '[DONE]' });
  return out;
}

export const openaiStreamError = (status: number, message: string, errorType?: string, code?: string): SseEvent => ({
  data: JSON.stringify(openaiErrorBody(status, message, errorType, code)),
});
