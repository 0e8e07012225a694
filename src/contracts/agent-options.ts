/**
 * The options a caller starts a run with: the partial run spec (`contracts/run-spec.ts`), in the
 * same records. `layerRunSpec` lays them over the defaults, the kind's facts and the config file's;
 * a resolved spec given as options layers as itself (a continued or forked run starts so).
 */
import type { BudgetRule, ResolverPolicy } from './model-resolution';
import type { ModelName } from './model-ref';
import type { EvalSpec } from './eval-spec';
import type { CallSettings } from './message-model';
import type {
  AgentHooks,
  AgentLimits,
  ContextPolicy,
  FleetSpec,
  MaskPolicy,
  PlanItemInput,
  SessionSpec,
} from './run-spec';
import type { SubAgents } from './sub-agents';
import type { ToolSelection } from './tool-catalog';

/** A budget rule as a caller gives it: the model by name or ref. */
export type BudgetRuleOption = Omit<BudgetRule, 'model'> & { model: ModelName };

/** The run's model with its fallbacks and budget rules, each model by name or ref. */
export type ModelOptions = Partial<Omit<ResolverPolicy, 'primary' | 'fallbacks' | 'budget'>> & {
  primary?: ModelName;
  fallbacks?: ModelName[];
  /** Once the spend reaches a threshold, use another (cheaper) model. */
  budget?: BudgetRuleOption[];
};

/** A run's tools as a caller gives them. */
export type ToolOptions = ToolSelection & {
  /**
   * Offer the model the built-in `ask_user` tool: a question it asks waits for an answer
   * (`AgentClient.answer`, the CLI's `answer`), like a client tool's result (docs/plans.md).
   */
  askUser?: boolean;
};

/** The context policy as a caller gives it. */
export type ContextOptions = Partial<Omit<ContextPolicy, 'summaryModel' | 'mask'>> & {
  summaryModel?: ModelName;
  /**
   * Mask old tool results in the context sent to the model (docs/design.md, Masking): the model sees
   * a stub and can read a result back. Default on for kinds whose turns can read a result back
   * (ReAct), off for the others (pev); false = off. The default moves the boundary by cost on a model
   * with a prompt cache (`byCost`), else keeps 3 results and moves in batches of 5; a caller who sets
   * `keepResults` or `batch` gets that rule unless `byCost` is set.
   */
  mask?: Partial<MaskPolicy> | false;
};

/** What a caller starts a run with; every record is optional and only its defined fields count. */
export interface AgentOptions {
  task: string;
  kind?: string;
  /** A `provider/model` spec string or a `ModelRef`, or the model with its fallbacks and budget rules. */
  model: ModelName | ModelOptions;
  systemPrompt?: string;
  call?: CallSettings;
  tools?: ToolOptions;
  limits?: Partial<AgentLimits>;
  context?: ContextOptions;
  session?: SessionSpec;
  fleet?: FleetSpec;
  /** Sub-agents the run may delegate to (docs/subagents.md). */
  agents?: SubAgents;
  /** The plan recited at the end of the context each turn; the model may tick it (`update_plan`, docs/plans.md). */
  plan?: PlanItemInput[];
  hooks?: AgentHooks;
  /** Publish the model's tokens to watchers as they arrive. */
  stream?: boolean;
  searchAttributes?: boolean;
  /** A run in an eval: its tool calls are answered from served results (docs/evals.md). */
  eval?: EvalSpec;
}

/** One layer of a run's options (the config file's, a kind's, an earlier run's): any record, any field. */
export type RunLayer = Partial<AgentOptions>;
