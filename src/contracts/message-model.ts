/**
 * The provider-neutral message model. Plain JSON only: these values cross the
 * workflow/activity boundary, live in workflow state and survive continue-as-new.
 */
import type { ModelName, ProviderId } from './model-ref';

export interface TextBlock {
  type: 'text';
  text: string;
}

/** Reasoning the model showed. `signature` (Anthropic) is only valid for the provider that wrote it. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
  /** Anthropic `redacted_thinking`: opaque data, returned verbatim to the same provider only. */
  redacted?: boolean;
}

export interface ToolCallBlock {
  type: 'tool_call';
  /** Provider-neutral id; adapters map it to each provider's id format. */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Set when the model's argument JSON could not be parsed (or only partially): never execute such a call. */
  malformed?: { raw: string; reason: string };
  /**
   * Provider data to hand back verbatim with this call, to the same provider and model only
   * (e.g. `extra_content` with a Gemini thought signature on its OpenAI-compatible endpoint).
   */
  providerExtras?: Record<string, unknown>;
}

export interface ImageBlock {
  type: 'image';
  mediaType: string;
  /** Base64 data. */
  data: string;
}

export type UserContent = TextBlock | ImageBlock;
export type AssistantContent = TextBlock | ThinkingBlock | ToolCallBlock;

export interface UserMessage {
  role: 'user';
  content: string | UserContent[];
  timestamp: number;
}

export interface ToolResultMessage {
  role: 'tool_result';
  toolCallId: string;
  toolName: string;
  content: (TextBlock | ImageBlock)[];
  isError: boolean;
  timestamp: number;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface Cost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** Normalized stop reasons. `raw` on the message keeps the provider's own value. */
export type StopReason =
  | 'stop' // natural end of turn
  | 'tool_use' // the model asked for tool calls
  | 'length' // cut by max tokens
  | 'stop_sequence'
  | 'content_filter'
  | 'refusal'
  | 'error'
  | 'aborted';

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContent[];
  provider: ProviderId;
  model: string;
  usage: Usage;
  cost: Cost;
  stopReason: StopReason;
  rawStopReason?: string;
  /** Provider-specific data needed to hand the message back to the same provider verbatim. */
  providerExtras?: Record<string, unknown>;
  /** Provider's response id, when it gave one. */
  responseId?: string;
  errorMessage?: string;
  timestamp: number;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/**
 * What a run asks of every model call (the run spec's `call`), carried whole from the options to
 * the provider request. A new setting is declared here, checked in `policy/call-settings.ts` and
 * written by each wire format's request builder (docs/design.md, Adding a call setting).
 */
export interface CallSettings {
  /** The most output tokens one model call may produce. */
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  /** At most 4; the model stops before any of them. */
  stopSequences?: string[];
  /** Extended thinking with this many tokens (at least 1024) where the model thinks. */
  thinkingBudget?: number;
  /** The answer's format: JSON, or JSON that follows a schema. */
  responseFormat?: ResponseFormat;
  /** Whether the model must, may or must not call tools. */
  toolChoice?: ToolChoice;
}

export interface CallOptions extends CallSettings {
  tools?: ToolSpec[];
  /** Put prompt-cache breakpoints (Anthropic) on the stable prefix and the conversation tail. Default true. */
  cache?: boolean;
}

/** Everything a provider call needs, except credentials (read inside the activity). */
export interface ModelRequest {
  /** The model: a `ModelRef`, or its spec string (`anthropic/claude-sonnet-4-5`, `openai-compatible/llama3`). */
  model: ModelName;
  systemPrompt?: string;
  messages: Message[];
  options?: CallOptions;
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
export const emptyCost = (): Cost => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });

/** Usage with the counts a compact record left out (zeros) restored. */
export const fullUsage = (u: Partial<Usage>): Usage => ({ ...emptyUsage(), ...u });

/** The sum of a cost's parts, in the order `computeCost` adds them (so the same number). */
const partsTotal = ({ input = 0, output = 0, cacheRead = 0, cacheWrite = 0 }: Partial<Cost>): number =>
  input + output + cacheRead + cacheWrite;

/** Cost with what a compact record left out restored: zero amounts, and a total that is the parts' sum. */
export const fullCost = (c: Partial<Cost>): Cost => ({ ...emptyCost(), ...c, total: c.total ?? partsTotal(c) });

/** The fields of a record of numbers that are not zero: what a compact record carries. */
export const withoutZeros = <T extends object>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== 0)) as Partial<T>;

/** A cost as a compact record carries it: without zero amounts, and without a total that is the parts' sum. */
export function compactCost(cost: Cost): Partial<Cost> {
  const { total, ...parts } = cost;
  const amounts: Partial<Cost> = withoutZeros(parts);
  return total === partsTotal(parts) ? amounts : { ...amounts, total };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

export function addCost(a: Cost, b: Cost): Cost {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    total: a.total + b.total,
  };
}

export const totalTokens = (u: Usage): number =>
  u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;

export const toolCallsOf = (m: AssistantMessage): ToolCallBlock[] =>
  m.content.filter((b): b is ToolCallBlock => b.type === 'tool_call');

export const textOf = (m: AssistantMessage | UserMessage | ToolResultMessage): string =>
  typeof m.content === 'string'
    ? m.content
    : m.content
        .filter((b): b is TextBlock => b.type === 'text')
        .map((b) => b.text)
        .join('');
