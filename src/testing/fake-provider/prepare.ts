/** Resolves a scripted reply into concrete blocks before it is rendered in a wire format. */
import { isPlainObject } from '../../common/type-helpers';
import type { PromptUsage } from './prompt-cache';
import type { FakeReply, FakeStopReason } from './script';

type PreparedBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redactedThinking'; data: string }
  /**
   * `input` is what a whole (non-streamed) Anthropic body carries: the parsed arguments, or the
   * raw text when it does not parse, as Anthropic-compatible servers pass unparseable output on.
   */
  | {
      type: 'tool_call';
      id: string;
      name: string;
      raw: string;
      input: Record<string, unknown> | string;
      thoughtSignature?: string;
    };

export interface PreparedReply {
  blocks: PreparedBlock[];
  stop: FakeStopReason;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** See `FakeReply.omitToolCallFields`. */
  omitToolCallFields?: ('id' | 'index')[];
}

export interface PrepareContext {
  newToolId: () => string;
  sign: (thinking: string) => string;
  /** How the request's prompt is billed when the step scripts no input usage. */
  prompt: PromptUsage;
}

export function prepareReply(step: FakeReply, ctx: PrepareContext): PreparedReply {
  const blocks: PreparedBlock[] = step.content.map((b): PreparedBlock => {
    switch (b.type) {
      case 'text':
        return { type: 'text', text: b.text };
      case 'thinking':
        return { type: 'thinking', thinking: b.thinking, signature: b.signature ?? ctx.sign(b.thinking) };
      case 'redactedThinking':
        return { type: 'redactedThinking', data: b.data };
      case 'tool_call': {
        const raw = b.rawArguments ?? JSON.stringify(b.arguments ?? {});
        const id = b.id ?? ctx.newToolId();
        const block: PreparedBlock = { type: 'tool_call', id, name: b.name, raw, input: parseObject(raw) };
        if (b.thoughtSignature) block.thoughtSignature = ctx.sign(`tool:${id}`);
        return block;
      }
    }
  });
  if (step.truncate && blocks.length > 0) {
    const last = blocks[blocks.length - 1];
    if (last.type === 'text') last.text = half(last.text);
    else if (last.type === 'thinking') last.thinking = half(last.thinking);
    else if (last.type === 'tool_call') {
      last.raw = half(last.raw);
      last.input = parseObject(last.raw);
    }
  }
  const stop: FakeStopReason = step.truncate
    ? 'length'
    : (step.stopReason ?? (blocks.some((b) => b.type === 'tool_call') ? 'tool_use' : 'stop'));
  const outputChars = blocks.reduce((n, b) => n + outputText(b).length, 0);
  const scripted = step.usage;
  const billed =
    scripted?.input === undefined && scripted?.cacheRead === undefined && scripted?.cacheWrite === undefined;
  const usage = {
    input:
      scripted?.input ??
      Math.max(1, billed ? ctx.prompt.input : ctx.prompt.input + ctx.prompt.cacheRead + ctx.prompt.cacheWrite),
    output: scripted?.output ?? Math.max(1, Math.ceil(outputChars / 4)),
    cacheRead: scripted?.cacheRead ?? (billed ? ctx.prompt.cacheRead : 0),
    cacheWrite: scripted?.cacheWrite ?? (billed ? ctx.prompt.cacheWrite : 0),
  };
  return { blocks, stop, usage, ...(step.omitToolCallFields ? { omitToolCallFields: step.omitToolCallFields } : {}) };
}

const half = (s: string): string => s.slice(0, Math.ceil(s.length / 2));

/** The text of a block that counts as output: its text, its thinking or its call's arguments. */
const outputText = (b: PreparedBlock): string =>
  b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : b.type === 'tool_call' ? b.raw : '';

function parseObject(raw: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(raw);
    return isPlainObject(value) ? value : raw;
  } catch {
    return raw;
  }
}

/** Splits text into small pieces the way a streaming API delivers it. */
export function pieces(text: string, size = 8): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** How each wire format spells a scripted stop reason: Anthropic `stop_reason`, OpenAI `finish_reason`. */
export const WIRE_STOP_REASONS: Record<FakeStopReason, { anthropic: string; openai: string }> = {
  stop: { anthropic: 'end_turn', openai: 'stop' },
  tool_use: { anthropic: 'tool_use', openai: 'tool_calls' },
  length: { anthropic: 'max_tokens', openai: 'length' },
  stop_sequence: { anthropic: 'stop_sequence', openai: 'stop' },
  content_filter: { anthropic: 'refusal', openai: 'content_filter' },
  refusal: { anthropic: 'refusal', openai: 'stop' },
};
