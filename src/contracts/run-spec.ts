/**
 * The run spec (docs/design.md, The run spec): everything a run is started with, one record per
 * concern. `AgentConfig` is the resolved spec a workflow runs with; a caller gives the partial one
 * (`AgentOptions`), which `layerRunSpec` lays over the defaults and the kind's facts. Plain JSON,
 * carried across continue-as-new.
 */
import type { EvalSpec } from './eval-spec';
import type { AssistantContent, CallSettings, ToolResultMessage, UserContent } from './message-model';
import type { ResolverPolicy } from './model-resolution';
import type { ModelRef } from './model-ref';
import type { ToolSelection } from './tool-catalog';
import type { ParentLink, SubAgents } from './sub-agents';

export interface AgentLimits {
  maxTurns: number;
  /** Total tokens (input + output + cache) of the run; the run stops at 95 % of it. */
  maxTotalTokens?: number;
  /** Total cost in USD; the run stops at 95 % of it. */
  maxCostUsd?: number;
  maxToolCallsPerTurn: number;
  /** Per-tool start-to-close timeout overrides, by tool name. */
  toolTimeoutsMs?: Record<string, number>;
  /** How long an approval or a client tool result may take before it resolves as a rejection. */
  approvalTimeoutMs: number;
  /** Sub-agent calls of one answer running at a time; default `DEFAULT_MAX_PARALLEL_AGENTS`. */
  maxParallelAgents?: number;
  /** How deep sub-agents may nest (a top-level run is 0); default `DEFAULT_MAX_AGENT_DEPTH`. */
  maxAgentDepth?: number;
}

/**
 * Turn hooks: names of user-supplied activities registered on the worker (docs/hooks.md). Each gets
 * references and small values, never a transcript.
 */
export interface AgentHooks {
  /**
   * `(HookTurnEndInput) => boolean | TurnEndDecision`: false (or `{ stop: true }`) stops the run;
   * `{ model, reason }` moves the run to that model from its next turn, recorded as a provider
   * switch with the reason. A failure stops the run with an error.
   */
  onTurnEnd?: string;
  /**
   * `(HookModelInput) => ModelChoice | null`: the model of each turn, chosen from state outside the
   * run (a credit balance), before the turn's context is prepared. Nothing (null) keeps the model
   * the run would use; another model is recorded as a provider switch with the reason. It wins over
   * the budget rules and an operator's switch for that turn. A failure stops the run with an error.
   */
  resolveModel?: string;
  /**
   * `(HookContextInput) => HookContextOutput | null`: rewrites what the model sees before each
   * model call (trim, inject), by reference: the hook stores the provider messages it wants sent and
   * returns their hash (`contextTransform` in `durable-agents/worker` does both). Nothing sends the
   * view unchanged; a failure is recorded as a `hook_failed` event and the call goes on unchanged.
   */
  transformContext?: string;
  /**
   * `(HookMessageInput) => void`; a failure is recorded as an event and the run goes on. The input
   * names the body by hash: `messageHook` (`durable-agents/worker`) gives the hook a loader of it.
   */
  onMessage?: string;
  /** `(HookErrorInput) => void`; a failure is ignored. */
  onError?: string;
}

/** How a run masks old tool results in the context it sends (docs/design.md, Masking). */
export interface MaskPolicy {
  /** The newest maskable results kept whole. */
  keepResults: number;
  /** The boundary moves only once this many more results could be masked (so provider caches keep hitting). */
  batch: number;
  /**
   * With a prompt cache, move the boundary by cost instead of `keepResults` and `batch`: as far as
   * the last answer, when the tokens it saves over the expected remaining calls outweigh writing
   * the cache again from the first newly masked result (`policy/masking.ts`). Absent = false.
   */
  byCost?: boolean;
}

export interface ContextPolicy {
  /** Context window of the model in tokens; absent = taken from the model registry (or 128k). */
  windowTokens?: number;
  /** Compact when the estimated context passes this share of the window. Default 0.8. */
  thresholdRatio: number;
  /** Recent tokens always kept verbatim. Default 30 % of the window. */
  keepRecentRatio: number;
  /** Model that writes summaries; absent = the model of the turn. */
  summaryModel?: ModelRef;
  /** Mask old tool results in the context sent to the model; absent = send every result whole. */
  mask?: MaskPolicy;
}

/** One todo of a plan recited at the end of the context each turn. */
export interface PlanItem {
  id: string;
  title: string;
  done: boolean;
}

/** A plan item as a caller gives it: without an id it gets its position, without `done` it is open. */
export type PlanItemInput = Pick<PlanItem, 'title'> & Partial<Pick<PlanItem, 'id' | 'done'>>;

/**
 * Where a run's conversation began: another run's conversation, taken whole or up to the end of a
 * turn, by reference (the log's entries name the same stored bodies; nothing runs again).
 */
export interface ConversationOrigin {
  /** The run it continues (its workflow id). */
  runId: string;
  /** That run's conversation in the content store. */
  conversationId: string;
  /** Only its first turns: up to this turn's tool results (a fork); absent = the whole conversation. */
  atTurn?: number;
}

/**
 * A message of a conversation an application gives a run to start from, in the project's message
 * model without what only a model call knows (provider, usage, cost): a text or content blocks.
 */
export type InitialMessage =
  | { role: 'user'; content: string | UserContent[] }
  | { role: 'assistant'; content: string | AssistantContent[] }
  | (Pick<ToolResultMessage, 'role' | 'toolCallId' | 'toolName'> & {
      content: string | ToolResultMessage['content'];
      isError?: boolean;
    });

/** Where a run's conversation comes from and how long it stays open. */
export interface SessionSpec {
  /** The conversation the run goes on from; its task (if any) comes after it. */
  from?: ConversationOrigin;
  /**
   * Messages the application gives the run to start from, its task after them: inline, or by the
   * content-store hash of the array (what the client sends when it has a store).
   */
  initialMessages?: InitialMessage[] | { hash: string };
  /**
   * After an answer with nothing queued, wait this long (ms) for a follow-up before completing: a
   * run that stays open for the next message of a conversation.
   */
  idleWaitMs?: number;
  /** Continue-as-new after this many turns in one run (besides Temporal's suggestion). */
  continueAsNewAfterTurns?: number;
}

/** Where a run stands in a fleet (docs/fleet.md). */
export interface FleetSpec {
  /** The tenant the run works for: the fairness key of its activities and its budget. */
  tenant?: string;
  /** 1 (first) to 5 (last): the priority key of its activities. */
  priority?: number;
  /** Task queue of the model and tool activities; absent = the workflow's queue. */
  taskQueue?: string;
  /**
   * What the run expects to spend (USD), reserved against its tenant's budget before it starts
   * (docs/fleet.md). Default: three calls' estimate, or fewer when its turn limit is lower.
   */
  expectedCostUsd?: number;
}

/** The resolved run spec: what a workflow runs with. */
export interface AgentConfig {
  /** The kind's name (`react`, `pev`, an application's); recorded in the DurableAgentKind search attribute. */
  kind: string;
  /** The task; with {@link taskHash}, a short text that points to the first user message instead. */
  task: string;
  /**
   * Content-store hash of the whole task (a JSON string), for a task too big to travel inline. The
   * run writes that body as its first user message.
   */
  taskHash?: string;
  systemPrompt?: string;
  /** The model, its fallbacks and budget rules. */
  model: ResolverPolicy;
  /** What every model call of the run asks for, carried whole (`callSettingProblems` checks it). */
  call: CallSettings;
  /** Which tools the run may use, which need a person, and the rules that ask per call. */
  tools: ToolSelection;
  limits: AgentLimits;
  context: ContextPolicy;
  session?: SessionSpec;
  fleet?: FleetSpec;
  /** Sub-agents the run may delegate to, each offered to the model as a tool named after it. */
  agents?: SubAgents;
  /** The plan recited at the end of the context each turn (docs/plans.md). */
  plan?: PlanItem[];
  hooks?: AgentHooks;
  /** Publish the model's tokens to watchers as they arrive. */
  stream?: boolean;
  /** Upsert the DurableAgent* search attributes (the server must have them registered). Default true. */
  searchAttributes?: boolean;
  /** Set in a child run: its parent and its depth. */
  parent?: ParentLink;
  /** A run in an eval: its tool calls are answered from served results (docs/evals.md). */
  eval?: EvalSpec;
}
