/**
 * The typed boundary between the agent workflow and its activities. Inputs carry references
 * (conversation id, log positions, content hashes), never the transcript, so history stays flat.
 * Pinning a run's tools is in `tool-pin.ts`, the messages the workflow writes in `message-drafts.ts`,
 * the application's hooks in `agent-hooks.ts`.
 */
import type { CallSettings, Cost, ResponseFormat, StopReason, Usage } from './message-model';
import type { ConversationView, MessageMeta, ToolCallRequest } from './agent-run';
import type { AppendMessagesInput } from './message-drafts';
import type { ResolvedModelInfo } from './model-info';
import type { ModelName, ModelRef } from './model-ref';
import type { SessionSpec } from './run-spec';
import type { BudgetActivities, CallBudget } from './tenant-budget';
import type { CallPin, PinToolsInput, PinToolsOutput } from './tool-pin';

export interface ModelCallInput {
  /** Absent = the calling run's workflow id, which is every run's conversation id (kept out of history). */
  conversationId?: string;
  /** Absent: the whole log (`wholeLog()`), as a run that never summarised sees it (kept out of history). */
  view?: ConversationView;
  /** The model sees log entries `[view.fromSeq, toSeq)`. */
  toSeq: number;
  /** Log position the assistant message is written at. */
  writeSeq: number;
  /** The model's spec string (`provider/model`); an object in older histories. */
  model: ModelName;
  systemPrompt?: string;
  toolSpecsHash?: string;
  /** The run's call settings, with what the turn sets over them (a role's output format and tool choice). */
  settings?: CallSettings;
  /**
   * Content-store hash of the provider messages a context transform made (a `Message[]`): sent in
   * place of the view read from the log (`view`, `toSeq` and `maskBefore` then only locate it).
   */
  messagesHash?: string;
  /** Text appended as a last user message and not stored (plan recitation). */
  recitation?: string;
  /** Successful tool results before this log position are shown as stubs (docs/design.md, Masking). */
  maskBefore?: number;
  /**
   * The call streams its output to the run's token stream: `after` is the offset the run's next
   * event took when the call was made, so a watcher shows the events below it before the call's
   * records (`true` in calls made before the offset was carried).
   */
  stream?: true | { after: number };
  /**
   * Content-store hash of a {@link StoredCallPrompt}: a long system prompt and response format
   * by reference, so they are not repeated in history at every call. Its fields win over the inline ones.
   */
  promptHash?: string;
  /** The run has no entry for this model yet: return what the worker's config says about it (`modelInfo`). */
  describeModel?: boolean;
  /** Quick tool calls the model call may run itself, right after the answer (see {@link InlineToolCalls}). */
  inlineTools?: InlineToolCalls;
  /** The role whose turn this is (`MessageMeta.agentRole`), kept with the stored answer. */
  agentRole?: string;
  /** The run's tools are not pinned yet: the call pins them first (see {@link CallPin}). */
  pin?: CallPin;
  /** The call's reservation against the run's tenant budget: each later attempt reserves its own. */
  budget?: CallBudget;
}

/**
 * The run's quick tools (no side effects, never asking for approval in this run) whose calls a
 * model call runs itself, so a turn of such calls takes one activity and one workflow task. It runs
 * them only when every call of the answer is a well-formed call to one of `tools` and there are at
 * most `maxCalls`; otherwise the workflow runs the calls as usual. Results are stored at the
 * positions after the answer, exactly as `runTool` stores them.
 */
export interface InlineToolCalls {
  /** Each tool's pinned fingerprint, by name. */
  tools: Record<string, string>;
  /** The run's timeout overrides (limits.toolTimeoutsMs) for these tools, when it has any. */
  timeoutsMs?: Record<string, number>;
  /** Absent: the default calls per turn (`limits.maxToolCallsPerTurn`'s default). */
  maxCalls?: number;
  /** The run's tool selection by hash (`PinToolsOutput.selectionHash`). */
  selectionHash?: string;
  /** As `RunToolInput.fit`. */
  fit?: ResultFit;
}

/** Call settings kept in the content store (see `ModelCallInput.promptHash`). */
export interface StoredCallPrompt {
  systemPrompt?: string;
  responseFormat?: ResponseFormat;
  /** The tool specs' hash, used when the call names none (a run's own prompt pins its tools with it). */
  toolSpecsHash?: string;
}

/**
 * What a model call returns to the workflow. Kept small, since it is recorded at every turn: what
 * the workflow knows already (the model it called, the calls' ids) it adds itself.
 */
export interface ModelCallOutput {
  /**
   * The answer's metadata; `model`, `toolCallIds` and `kind` (always `assistant`) are absent when the
   * workflow fills them in.
   */
  meta: Omit<MessageMeta, 'kind'> & { kind?: 'assistant' };
  /** Absent: `tool_use`, the stop of an answer that calls tools. */
  stopReason?: StopReason;
  /** Token counts; a count of zero may be left out (`fullUsage` restores it). */
  usage: Partial<Usage>;
  /** Cost in USD, compact: a zero, or a total that is the parts' sum, may be left out (`fullCost` restores it). */
  cost: Partial<Cost>;
  toolCalls: ToolCallRequest[];
  /**
   * Text of an answer without tool calls (what `finalText` reports when it is the last one). Absent
   * on an answer with tool calls: the workflow does not need it, and the store keeps it.
   */
  text?: string;
  errorMessage?: string;
  /** What the worker's config says about the model, when the input asked (`describeModel`). */
  modelInfo?: ResolvedModelInfo;
  /** The results of the answer's tool calls when the call ran them itself (`inlineTools`), in call order. */
  toolResults?: CompactToolOutput[];
  /** What pinning the run's tools gave, when the input asked the call to pin them (`pin`). */
  pinned?: PinToolsOutput;
  /** The reservation of the attempt that answered, when it was not the call's first (`budget`). */
  budgetKey?: string;
}

/** A tool call's output as a model call's result carries it: `isError` only when true. */
export type CompactToolOutput = Omit<RunToolOutput, 'isError'> & { isError?: true };

/** A call that pinned the run's tools and asked the model nothing (see {@link CallPin}). */
export interface PinnedOnly {
  pinned: PinToolsOutput;
  answered: false;
}

/**
 * A call the worker did not make because the model's calls go through a limit's task queue the run
 * did not know of (set, or learned from a provider's 429, since the run was told): `modelInfo` names
 * the limit, and the run makes the call again on its queue. A call that pinned the run's tools
 * brings the pin.
 */
export interface MovedToLimit {
  modelInfo: ResolvedModelInfo;
  answered: false;
  pinned?: PinToolsOutput;
}

/** What a model call returns: the answer, only the pin, or where the call belongs. */
export type ModelCallResult = ModelCallOutput | PinnedOnly | MovedToLimit;

export interface RunToolInput {
  /** Absent = the calling run's workflow id (see `ModelCallInput.conversationId`). */
  conversationId?: string;
  seq: number;
  runId: string;
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  fingerprint?: string;
  /** Content-store hash of the run's tool selection (`PinToolsOutput.selectionHash`). */
  selectionHash?: string;
  /** Put before the tool's output in the stored result (e.g. that the approver edited the arguments). */
  note?: string;
  /** The run's per-tool timeout override (limits.toolTimeoutsMs), when it has one for this tool. */
  timeoutMs?: number;
  /** Results longer than this are cut to fit the model's context window (`ResultFit`). */
  fit?: ResultFit;
}

/**
 * How long a tool result may be in the run's conversation: a longer one is stored cut to
 * `maxChars`, with a note saying how to read the rest, and whole beside it.
 */
export interface ResultFit {
  maxChars: number;
  /** The run offers `read_tool_result`, so the note can say to page through the rest with it. */
  readBack: boolean;
}

/**
 * What a tool call returns to the workflow: the stored result's hash and size; the workflow knows
 * the rest of its metadata. Outputs recorded earlier carry the whole `meta` instead.
 */
export interface RunToolOutput {
  hash?: string;
  tokens?: number;
  meta?: MessageMeta;
  isError: boolean;
  durationMs: number;
  /** A preview of the stored result (`policy/previews.ts`), for the run's events. */
  preview?: string;
  /** Content-store hash of the call's log (a `tool_log` body), when the tool logged lines. */
  logHash?: string;
}

export interface SummariseInput {
  conversationId: string;
  view: ConversationView;
  /** Entries `[view.fromSeq, toSeq)` are folded into the new summary. */
  toSeq: number;
  model: ModelRef;
  /** As `ModelCallInput.budget`. */
  budget?: CallBudget;
}

export interface SummariseOutput {
  summaryHash: string;
  summaryTokens: number;
  usage: Usage;
  cost: Cost;
  model: ModelRef;
  /** As `ModelCallOutput.budgetKey`. */
  budgetKey?: string;
}

/** Starts a run's conversation from another's (`session.from`) or from given messages (`session.initialMessages`). */
export interface CopyConversationInput {
  /** The conversation to go on from; absent with `given`. */
  from?: string;
  /** The messages the application gave, checked again and written instead of a conversation's. */
  given?: SessionSpec['initialMessages'];
  /** The run's own conversation, empty so far. */
  to: string;
  /** Up to the end of this turn (its answer and that answer's tool results); absent = all of it. */
  atTurn?: number;
}

export interface CopyConversationOutput {
  /** The entries now at the start of the run's log, as the run's state holds them. */
  messages: MessageMeta[];
  /** Turns (answers) they hold. */
  turns: number;
  /** Whether they end with an answer (the model has nothing new to answer without a message). */
  endsWithAnswer: boolean;
}

/** The agent activities a workflow calls (implemented by `createAgentActivities`). */
export interface AgentActivities extends BudgetActivities {
  copyConversation(input: CopyConversationInput): Promise<CopyConversationOutput>;
  callModel(input: ModelCallInput): Promise<ModelCallResult>;
  appendMessages(input: AppendMessagesInput): Promise<MessageMeta[]>;
  pinTools(input: PinToolsInput): Promise<PinToolsOutput>;
  runTool(input: RunToolInput): Promise<RunToolOutput>;
  summariseConversation(input: SummariseInput): Promise<SummariseOutput>;
}
