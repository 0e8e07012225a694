/**
 * Pinning a run's tools (docs/design.md, History per turn): what the run sends to have its tools,
 * system prompt and selection stored and its models described, what comes back, and the pin a
 * run's first model call takes along.
 */
import type { MessageMeta, PinnedTool } from './agent-run';
import type { AgentConfig } from './run-spec';
import type { AppendMessagesInput } from './message-drafts';
import type { ResolvedModelInfo } from './model-info';
import type { ModelRef } from './model-ref';
import type { ToolSelection } from './tool-catalog';

export interface PinToolsInput {
  conversationId: string;
  selection: ToolSelection;
  /** The run's system prompt: stored once, so model calls carry its hash (`promptHash`) rather than its text. */
  systemPrompt?: string;
  /** Offer the built-in tool that reads a masked tool result back (the run masks results). */
  readBack?: boolean;
  /** The run's models (chain, budget, summary, roles): the output says what the worker's config knows of each. */
  models?: ModelRef[];
  /**
   * The run's sub-agents, offered as tools named after them (`mode: 'agent'`), with the tools each
   * asks for (a name the worker lacks fails the run before its first model call).
   */
  agents?: { name: string; description: string; tools?: string[] }[];
  /** The run's tenant: the output says whether it has a budget (docs/fleet.md, Tenant budgets across runs). */
  tenant?: string;
  /**
   * The conversation's first messages (the task), written before the tools are pinned, so a run
   * starts in one local activity and a run whose tools cannot be pinned still shows its task.
   */
  open?: Omit<AppendMessagesInput, 'conversationId'>;
  /** Offer the model the tool that updates the run's plan (`update_plan`): the run started with a plan. */
  planTool?: boolean;
}

export interface PinToolsOutput {
  tools: PinnedTool[];
  toolSpecsHash?: string;
  /** Content-store hash of the run's {@link StoredCallPrompt}, when the input had a system prompt. */
  promptHash?: string;
  /** Content-store hash of the run's tool selection: tool calls carry it rather than the selection. */
  selectionHash?: string;
  /** One entry per model of the input whose provider the worker knows. */
  models?: ResolvedModelInfo[];
  /** The input's tenant has a budget: the run reserves before each model call. */
  tenantBudget?: true;
  /** The metadata of the messages the input's `open` wrote. */
  opened?: MessageMeta[];
}

/**
 * The pin a run's first model call takes along (docs/design.md, History per turn): the call pins
 * the run's tools as `pinTools` does (the task first), then asks the model with what the pin gave
 * (the tool specs, and the run's system prompt, by hash). It asks nothing when the pin shows
 * something the run decides first: a problem with what the run asks (`runSpecProblems` with the
 * worker's entries), or a model whose calls go through a limit's task queue; it then returns only
 * the pin ({@link PinnedOnly}).
 */
export interface CallPin {
  /** The run's spec: what the pin asks of the worker is derived from it (`policy/pinning.ts`). */
  spec: AgentConfig;
  /** The models of a kind's own steps besides the run's. */
  roles?: ModelRef[];
  /**
   * `run`: the call takes the run's system prompt, which the pin stores and names by hash; `call`:
   * the call brings a prompt of its own (a kind's role) and takes only the pinned tool specs.
   */
  prompt: 'run' | 'call';
  /**
   * The turn lets its model call run quick tool calls itself: the call picks them from the pinned
   * tools as the run would, the results fitted to the window of `fitModel`. Absent: it runs none.
   */
  quick?: { fitModel: ModelRef };
}
