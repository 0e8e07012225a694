/**
 * The typed boundary between the agent workflow and its activities. Inputs carry references
 * (conversation id, log positions, content hashes), never the transcript, so history stays flat.
 */
import type { Cost, ResponseFormat, StopReason, ToolChoice, Usage } from './message-model';
import type { ToolCatalog, ToolSelection } from './tool-catalog';
import type { ConversationView, MessageMeta, PinnedTool, ToolCallRequest } from './agent-run';
import type { ResolvedModelInfo } from './model-info';
import type { ModelRef } from './model-ref';

export interface ModelCallInput {
  conversationId: string;
  view: ConversationView;
  /** The model sees log entries `[view.fromSeq, toSeq)`. */
  toSeq: number;
  /** Log position the assistant message is written at. */
  writeSeq: number;
  model: ModelRef;
  systemPrompt?: string;
  toolSpecsHash?: string;
  maxTokens?: number;
  temperature?: number;
  /** Text appended as a last user message and not stored (plan recitation). */
  recitation?: string;
  stream?: boolean;
  /** Structured output (a JSON schema) where the provider supports it. */
  responseFormat?: ResponseFormat;
  toolChoice?: ToolChoice;
  /**
   * Content-store hash of a {@link StoredCallPrompt}: a long system prompt and response format
   * by reference, so they are not repeated in history at every call. Its fields win over the inline ones.
   */
  promptHash?: string;
  /** The run has no entry for this model yet: return what the worker's config says about it (`modelInfo`). */
  describeModel?: boolean;
}

/** A system prompt and response format kept in the content store (see `ModelCallInput.promptHash`). */
export interface StoredCallPrompt {
  systemPrompt?: string;
  responseFormat?: ResponseFormat;
}

export interface ModelCallOutput {
  meta: MessageMeta;
  provider: string;
  model: string;
  stopReason: StopReason;
  usage: Usage;
  cost: Cost;
  toolCalls: ToolCallRequest[];
  /** Text of the answer (what `finalText` reports when it is the last one). */
  text: string;
  errorMessage?: string;
  /** What the worker's config says about the model, when the input asked (`describeModel`). */
  modelInfo?: ResolvedModelInfo;
}

/** Where a user message came from: the run's task, steering, a follow-up; absent for the workflow's own prompts. */
export type UserOrigin = 'task' | 'steering' | 'follow_up';

/** A message that originates in the workflow, written to the log by `appendMessages`. */
export type MessageDraft =
  /** With `textHash`, the body's text is the string stored under that content hash instead of `text`. */
  | { kind: 'user'; text: string; origin?: UserOrigin; textHash?: string }
  | { kind: 'tool_result'; toolCallId: string; toolName: string; text: string; isError: boolean }
  | { kind: 'context_note' | 'system_event' | 'tool_log'; text: string };

export interface AppendMessagesInput {
  conversationId: string;
  startSeq: number;
  drafts: MessageDraft[];
}

export interface PinToolsInput {
  conversationId: string;
  selection: ToolSelection;
  /** The run's models (chain, budget, summary, roles): the output says what the worker's config knows of each. */
  models?: ModelRef[];
}

export interface PinToolsOutput {
  tools: PinnedTool[];
  toolSpecsHash?: string;
  unavailableServers?: ToolCatalog['unavailableServers'];
  /** One entry per model of the input whose provider the worker knows. */
  models?: ResolvedModelInfo[];
}

export interface RunToolInput {
  conversationId: string;
  seq: number;
  runId: string;
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  fingerprint?: string;
  selection: ToolSelection;
  /** Put before the tool's output in the stored result (e.g. that the approver edited the arguments). */
  note?: string;
  /** The run's per-tool timeout override (limits.toolTimeoutsMs), when it has one for this tool. */
  timeoutMs?: number;
}

export interface RunToolOutput {
  meta: MessageMeta;
  isError: boolean;
  durationMs: number;
}

export interface SummariseInput {
  conversationId: string;
  view: ConversationView;
  /** Entries `[view.fromSeq, toSeq)` are folded into the new summary. */
  toSeq: number;
  model: ModelRef;
}

export interface SummariseOutput {
  summaryHash: string;
  summaryTokens: number;
  usage: Usage;
  cost: Cost;
  model: ModelRef;
}

/** The agent activities a workflow calls (implemented by `createAgentActivities`). */
export interface AgentActivities {
  callModel(input: ModelCallInput): Promise<ModelCallOutput>;
  appendMessages(input: AppendMessagesInput): Promise<MessageMeta[]>;
  pinTools(input: PinToolsInput): Promise<PinToolsOutput>;
  runTool(input: RunToolInput): Promise<RunToolOutput>;
  summariseConversation(input: SummariseInput): Promise<SummariseOutput>;
}

export interface HookTurnEndInput {
  conversationId: string;
  turn: number;
  /** The turn's model as a spec string (`provider/model`). */
  model: string;
  provider: string;
  turnUsage: Usage;
  totalUsage: Usage;
  costUsd: number;
}

export interface HookMessageInput {
  conversationId: string;
  message: MessageMeta;
}

export interface HookErrorInput {
  conversationId: string;
  message: string;
  failureType?: string;
  retryable: boolean;
}

/** Shapes of the user-supplied hook activities named in `AgentHooks`. */
export interface AgentHookActivities {
  onTurnEnd(input: HookTurnEndInput): Promise<boolean>;
  onMessage(input: HookMessageInput): Promise<void>;
  onError(input: HookErrorInput): Promise<void>;
}
