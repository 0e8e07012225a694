/**
 * The application's hooks a run calls (docs/hooks.md): each is an activity the run names in its
 * config (`AgentHooks`), registered on the worker; these are their inputs and answers.
 */
import type { FleetSpec } from './run-spec';
import type { ConversationView, MessageMeta } from './agent-run';
import type { Usage } from './message-model';
import type { ModelName } from './model-ref';

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

/** What an `onTurnEnd` hook may return besides a boolean. */
export interface TurnEndDecision {
  /** Stop the run (stop reason `hook_stopped`). */
  stop?: boolean;
  /** The model of the run's next turns (a spec string or a ref). */
  model?: ModelName;
  /** Why, recorded with the switch. */
  reason?: string;
}

/** What a `resolveModel` hook is asked before each model turn. */
export interface HookModelInput {
  conversationId: string;
  turn: number;
  /** The turn's step as the timeline names it (`turn 3`, `executor round 1 · todo 2`). */
  step: string;
  /** The model the run would use for this turn, as a spec string. */
  model: string;
  totalUsage: Usage;
  costUsd: number;
  /** The run's place in its fleet, when its spec gives one. */
  fleet?: FleetSpec;
}

/** A model a `resolveModel` hook chose, with why (recorded with the switch). */
export interface ModelChoice {
  model: ModelName;
  reason?: string;
}

/** What a `transformContext` hook is asked before each model call: where the view is, never its bodies. */
export interface HookContextInput {
  conversationId: string;
  turn: number;
  step: string;
  /** The model about to be called, as a spec string: its provider decides how messages are handed over. */
  model: string;
  view: ConversationView;
  /** The view is log entries `[view.fromSeq, toSeq)`. */
  toSeq: number;
  /** Successful tool results before this log position are masked in the view. */
  maskBefore?: number;
}

/** A context transform's result: the provider messages to send, stored as a `Message[]` under this hash. */
export interface HookContextOutput {
  messagesHash: string;
  /** What it changed, in a few words (its `context_transformed` event). */
  note?: string;
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
  onTurnEnd(input: HookTurnEndInput): Promise<boolean | TurnEndDecision>;
  resolveModel(input: HookModelInput): Promise<ModelChoice | null | undefined>;
  transformContext(input: HookContextInput): Promise<HookContextOutput | null | undefined>;
  onMessage(input: HookMessageInput): Promise<void>;
  onError(input: HookErrorInput): Promise<void>;
}
