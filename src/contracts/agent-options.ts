/** The options a caller starts a run with; the policy fills in the rest of the config. */
import type { ToolSelection } from './tool-catalog';
import type { SubAgents } from './sub-agents';
import type { ApprovalRule } from './approval';

import type { BudgetRule } from './model-resolution';
import type { ModelName } from './model-ref';
import type { ResponseFormat, ToolChoice } from './message-model';
import type {
  AgentHooks,
  AgentLimits,
  ContextPolicy,
  ConversationOrigin,
  MaskPolicy,
  PlanItemInput,
} from './agent-run';

/** A budget rule as a caller gives it: the model by name or ref. */
export type BudgetRuleOption = Omit<BudgetRule, 'model'> & { model: ModelName };

export interface AgentOptions {
  task: string;
  kind?: string;
  /** A `provider/model` spec string or a `ModelRef`; parsed once, before the run starts. */
  model: ModelName;
  fallbacks?: ModelName[];
  /** Attempts one provider gets before failing over. */
  attemptsPerProvider?: number;
  /** How long (ms) a call refused for a rate limit is made again before the run fails for it. Default 30 minutes. */
  rateLimitPatienceMs?: number;
  budget?: BudgetRuleOption[];
  systemPrompt?: string;
  limits?: Partial<AgentLimits>;
  tools?: ToolSelection;
  /** Tool names or patterns that need approval this run. */
  approve?: string[];
  approvals?: ApprovalRule[];
  hooks?: AgentHooks;
  context?: Partial<Omit<ContextPolicy, 'summaryModel' | 'mask'>> & { summaryModel?: ModelName };
  /**
   * Mask old tool results in the context sent to the model (docs/design.md, Masking): the model sees
   * a stub and can read a result back. Default on for ReAct runs, off for pev runs (their planner
   * and verifier cannot call tools to read a result back); false = off. The default moves the
   * boundary by cost on a model with a prompt cache (`byCost`), else keeps 3 results and moves in
   * batches of 5; a caller who sets `keepResults` or `batch` gets that rule unless `byCost` is set.
   */
  masking?: Partial<MaskPolicy> | false;
  /** The most output tokens one model call may produce. */
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  /** At most 4; the model stops before any of them. */
  stopSequences?: string[];
  /** Extended thinking with this many tokens (at least 1024) where the model thinks. */
  thinkingBudget?: number;
  /** The answer's format: JSON, or JSON that follows a schema (ReAct runs; pev roles have their own). */
  responseFormat?: ResponseFormat;
  /** Whether the model must, may or must not call tools (ReAct runs; pev roles have their own). */
  toolChoice?: ToolChoice;
  stream?: boolean;
  /** The plan recited at the end of the context each turn; the model may tick it (`update_plan`, docs/plans.md). */
  plan?: PlanItemInput[];
  /**
   * Offer the model the built-in `ask_user` tool: a question it asks waits for an answer
   * (`AgentClient.answer`, the CLI's `answer`), like a client tool's result (docs/plans.md).
   */
  askUser?: boolean;
  continueAsNewAfterTurns?: number;
  searchAttributes?: boolean;
  activityTaskQueue?: string;
  /** The tenant the run works for: its activities share queues fairly with other tenants' (docs/fleet.md). */
  tenant?: string;
  /** 1 (first) to 5 (last): the priority of the run's activities in a backlog. Default: the server's (3). */
  priority?: number;
  /**
   * What the run expects to spend (USD), reserved against its tenant's budget before it starts
   * (docs/fleet.md, Admission: a budget buys answers). Default: three calls' estimate, or fewer
   * when its turn limit is lower.
   */
  expectedCostUsd?: number;
  /** Go on from another run's conversation (the client fills it from `continueFrom` / `fork`). */
  from?: ConversationOrigin;
  /** After an answer, wait this long for a follow-up before completing (ms). */
  idleWaitMs?: number;
  /** Sub-agents the run may delegate to (docs/subagents.md). */
  agents?: SubAgents;
}
