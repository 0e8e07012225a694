/** Anthropic Messages wire format: whole responses, SSE event streams and error bodies. */
import { WIRE_STOP_REASONS, pieces, type PreparedReply } from './prepare';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  409: 'invalid_request_error',
  413: 'request_too_large',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

export function anthropicErrorBody(
  status: number,
  message: string,
  errorType?: string,
  requestId?: string,
): Record<string, unknown> {
  const type = errorType ?? ERROR_TYPES[status] ?? 'api_error';
  return { type: 'error', error: { type, message }, request_id: requestId };
}

function usageJson(reply: PreparedReply, output: number): Record<string, unknown> {
  return {
    input_tokens: reply.usage.input,
    output_tokens: output,
    cache_creation_input_tokens: reply.usage.cacheWrite,
    cache_read_input_tokens: reply.usage.cacheRead,
    service_tier: 'standard',
  };
}

function blockJson(block: PreparedReply['blocks'][number]): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text, citations: null };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redactedThinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_call':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
  }
}

/** A message object: a whole response, or the empty one a stream starts with. */
const messageJson = (
  id: string,
  model: string,
  content: unknown[],
  stopReason: string | null,
  usage: Record<string, unknown>,
): Record<string, unknown> => ({
  id,
  type: 'message',
  role: 'assistant',
  model,
  content,
  stop_reason: stopReason,
  stop_sequence: null,
  usage,
});

export function anthropicMessage(reply: PreparedReply, id: string, model: string): Record<string, unknown> {
  const usage = usageJson(reply, reply.usage.output);
  return messageJson(id, model, reply.blocks.map(blockJson), WIRE_STOP_REASONS[reply.stop].anthropic, usage);
}

export interface SseEvent {
  event?: string;
  data: string;
}

const ev = (event: string, data: Record<string, unknown>): SseEvent => ({
  event,
  data: JSON.stringify({ type: event, ...data }),
});

/** The event a stream starts with: the message without content, with the usage known at its start. */
export const anthropicMessageStart = (id: string, model: string, usage: Record<string, unknown>): SseEvent =>
  ev('message_start', { message: messageJson(id, model, [], null, usage) });

export function anthropicEvents(reply: PreparedReply, id: string, model: string): SseEvent[] {
  const events: SseEvent[] = [anthropicMessageStart(id, model, usageJson(reply, 1)), ev('ping', {})];
  reply.blocks.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        events.push(ev('content_block_start', { index, content_block: { type: 'text', text: '', citations: null } }));
        for (const text of pieces(block.text))
          events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text } }));
        break;
      case 'thinking':
        events.push(
          ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
        );
        for (const thinking of pieces(block.thinking))
          events.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }));
        events.push(
          ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }),
        );
        break;
      case 'redactedThinking':
        events.push(
          ev('content_block_start', { index, content_block: { type: 'redacted_thinking', data: block.data } }),
        );
        break;
      case 'tool_call':
        events.push(
          ev('content_block_start', {
            index,
            content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
          }),
        );
        for (const partial_json of pieces(block.raw, 5)) {
          events.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
        }
        break;
    }
    events.push(ev('content_block_stop', { index }));
  });
  events.push(
    ev('message_delta', {
      delta: { stop_reason: WIRE_STOP_REASONS[reply.stop].anthropic, stop_sequence: null },
      usage: { output_tokens: reply.usage.output },
    }),
    ev('message_stop', {}),
  );
  return events;
}

export const anthropicStreamError = (status: number, message: string, errorType?: string): SseEvent => ({
  event: 'error',
  data: JSON.stringify(anthropicErrorBody(status, message, errorType)),
});
