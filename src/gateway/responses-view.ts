/**
 * Runs as Open Responses objects (the `openai` SDK's `Response` and `ResponseStreamEvent` types):
 * a run's status and answer as a response, and its watch items as the streamed event types, each
 * numbered in order from the run's stream so a stream read again numbers its events the same.
 */
import type {
  Response,
  ResponseOutputMessage,
  ResponseStatus,
  ResponseStreamEvent,
  ResponseUsage,
} from 'openai/resources/responses/responses';
import type { AgentEvent } from '../contracts/agent-events';
import type { AgentResult } from '../contracts/agent-run';
import type { Usage } from '../contracts/message-model';
import type { WatchItem } from '../contracts/watch-topics';
import { runEnd } from './run-bridge';

export interface ResponseFacts {
  id: string;
  model: string;
  status: ResponseStatus;
  createdAt: number;
  /** When the response completed (Unix seconds); only a completed response has it. */
  completedAt?: number;
  output?: ResponseOutputMessage[];
  usage?: Usage;
  error?: string;
  previous?: string;
  background?: boolean;
}

const usageOf = (u: Usage): ResponseUsage => ({
  input_tokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens,
  input_tokens_details: { cached_tokens: u.cacheReadTokens, cache_write_tokens: u.cacheWriteTokens },
  output_tokens: u.outputTokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens,
});

/**
 * What every response object states about how it was generated, as Open Responses requires: a run
 * samples with its provider's defaults and truncates nothing, so these are the protocol's defaults.
 * The penalties are in the Open Responses schema, not in the `openai` SDK's type.
 */
const GENERATION = {
  truncation: 'disabled',
  text: { format: { type: 'text' } },
  temperature: 1,
  top_p: 1,
  top_logprobs: 0,
  presence_penalty: 0,
  frequency_penalty: 0,
  reasoning: null,
  max_output_tokens: null,
  max_tool_calls: null,
  store: true,
  service_tier: 'default',
  safety_identifier: null,
  prompt_cache_key: null,
} as const;

/** A response object. */
export function responseOf(f: ResponseFacts): Response {
  const output = f.output ?? [];
  return {
    ...GENERATION,
    id: f.id,
    object: 'response',
    created_at: f.createdAt,
    completed_at: f.status === 'completed' ? (f.completedAt ?? f.createdAt) : null,
    status: f.status,
    model: f.model,
    output,
    output_text: output.flatMap((m) => m.content.map((c) => (c.type === 'output_text' ? c.text : ''))).join(''),
    error: f.error ? { code: 'server_error', message: f.error } : null,
    incomplete_details: f.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    metadata: null,
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
    previous_response_id: f.previous ?? null,
    background: f.background ?? false,
    usage: f.usage ? usageOf(f.usage) : null,
  } as Response;
}

/** The response status of a run that has ended, by how it ended. */
export function statusOfResult(r: AgentResult): ResponseStatus {
  const end = runEnd(r);
  return end === 'completed' && r.stopReason !== 'completed' && r.stopReason !== 'stopped' ? 'incomplete' : end;
}

/** One message output item. */
export const messageItem = (
  id: string,
  text: string,
  status: ResponseOutputMessage['status'],
  phase?: ResponseOutputMessage['phase'],
): ResponseOutputMessage => ({
  id,
  type: 'message',
  role: 'assistant',
  status,
  content: text || status === 'completed' ? [{ type: 'output_text', text, annotations: [] }] : [],
  ...(phase ? { phase } : {}),
});

/** The run's answer as the output of a finished response. */
export const finalOutput = (id: string, r: AgentResult): ResponseOutputMessage[] =>
  r.finalText ? [messageItem(`${id}#final`, r.finalText, 'completed', 'final_answer')] : [];

/** Turns a run's watch items into Responses stream events, each message of the model one output item. */
export class ResponseEvents {
  private seq = 0;
  private readonly items: ResponseOutputMessage[] = [];
  private open?: { key: string; item: ResponseOutputMessage; text: string };

  constructor(private readonly base: Omit<ResponseFacts, 'status'>) {}

  private next<T extends Omit<ResponseStreamEvent, 'sequence_number'>>(e: T): ResponseStreamEvent {
    return { ...e, sequence_number: this.seq++ } as unknown as ResponseStreamEvent;
  }

  private response(status: ResponseStatus, extra: Partial<ResponseFacts> = {}): Response {
    return responseOf({ ...this.base, status, output: [...this.items], ...extra });
  }

  started(): ResponseStreamEvent[] {
    return [
      this.next({ type: 'response.created', response: this.response('in_progress') }),
      this.next({ type: 'response.in_progress', response: this.response('in_progress') }),
    ];
  }

  item(item: WatchItem): ResponseStreamEvent[] {
    if (item.topic === 'tokens')
      return item.delta.kind === 'text' && item.delta.text
        ? this.text(`${item.delta.seq}.${item.delta.attempt}`, item.delta.text)
        : [];
    return this.event(item.event);
  }

  private text(key: string, delta: string): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    if (this.open?.key !== key) {
      out.push(...this.close());
      const item = messageItem(`${this.base.id}#${key}`, '', 'in_progress');
      this.open = { key, item, text: '' };
      out.push(this.next({ type: 'response.output_item.added', output_index: this.items.length, item }));
      out.push(
        this.next({
          type: 'response.content_part.added',
          item_id: item.id,
          output_index: this.items.length,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
      );
    }
    this.open!.text += delta;
    const at = { item_id: this.open!.item.id, output_index: this.items.length, content_index: 0 };
    out.push(this.next({ type: 'response.output_text.delta', ...at, delta, logprobs: [] }));
    return out;
  }

  /** Ends the open message item, if any. */
  private close(phase: ResponseOutputMessage['phase'] = 'commentary'): ResponseStreamEvent[] {
    if (!this.open) return [];
    const { item, text } = this.open;
    this.open = undefined;
    const at = { item_id: item.id, output_index: this.items.length, content_index: 0 };
    const done = messageItem(item.id, text, 'completed', phase);
    this.items.push(done);
    return [
      this.next({ type: 'response.output_text.done', ...at, text, logprobs: [] }),
      this.next({ type: 'response.content_part.done', ...at, part: { type: 'output_text', text, annotations: [] } }),
      this.next({ type: 'response.output_item.done', output_index: at.output_index, item: done }),
    ];
  }

  private event(e: AgentEvent): ResponseStreamEvent[] {
    if (e.type === 'turn_end') return this.close(e.toolCalls === 0 ? 'final_answer' : 'commentary');
    if (e.type === 'error')
      return [
        ...this.close(),
        this.next({ type: 'error', code: e.failureType ?? null, message: e.message, param: null }),
      ];
    if (e.type !== 'done') return [];
    const closing = this.close('final_answer');
    const facts = { usage: e.usage, completedAt: Math.floor(Date.now() / 1000) };
    if (e.stopReason === 'completed' || e.stopReason === 'stopped')
      return [...closing, this.next({ type: 'response.completed', response: this.response('completed', facts) })];
    if (e.stopReason === 'error')
      return [
        ...closing,
        this.next({
          type: 'response.failed',
          response: this.response('failed', { ...facts, error: e.finalText || 'the run failed' }),
        }),
      ];
    const status: ResponseStatus = e.stopReason === 'cancelled' ? 'cancelled' : 'incomplete';
    return [...closing, this.next({ type: 'response.incomplete', response: this.response(status, facts) })];
  }
}
