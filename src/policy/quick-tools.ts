/**
 * The quick tools whose calls a turn's model call may run itself (`InlineToolCalls`, docs/design.md,
 * History per turn): tools without side effects that no call of can need a decision. The run picks
 * them for each call from its pinned tools; a call that pins the run's tools picks them the same way.
 */
import type { InlineToolCalls, ResultFit } from '../contracts/agent-activities';
import type { QuickToolRules } from '../contracts/tool-pin';
import type { AgentConfig, PinnedTool } from '../contracts/agent-run';
import type { ModelRef } from '../contracts/model-ref';
import type { ResolvedModelInfo } from '../contracts/model-info';
import { neverAsks } from './approval-rules';
import { DEFAULT_CONTEXT_WINDOW, maxResultChars } from './context-plan';
import { READ_RESULT_TOOL } from './masking';
import { runModelInfo } from './model-registry';

/** The rules of a run's config that decide its quick tools. */
export const quickToolRules = (config: AgentConfig): QuickToolRules => ({
  approve: config.tools.approve,
  approvals: config.approvals,
  timeoutsMs: config.limits.toolTimeoutsMs,
  maxCalls: config.limits.maxToolCallsPerTurn,
});

/** The quick calls a model call may run among `tools`; undefined when none of them is quick. */
export function quickToolCalls(
  tools: readonly PinnedTool[],
  rules: QuickToolRules,
  selectionHash: string | undefined,
  fit: ResultFit,
): InlineToolCalls | undefined {
  const run = { approve: rules.approve, rules: rules.approvals };
  const quick = tools.filter((t) => t.local === true && !t.sideEffects && neverAsks(t, run));
  if (quick.length === 0) return undefined;
  const overrides = rules.timeoutsMs ?? {};
  const timeouts = quick.filter((t) => overrides[t.name] !== undefined).map((t) => [t.name, overrides[t.name]]);
  return {
    tools: Object.fromEntries(quick.map((t) => [t.name, t.fingerprint])),
    ...(timeouts.length > 0 ? { timeoutsMs: Object.fromEntries(timeouts) } : {}),
    maxCalls: rules.maxCalls,
    ...(selectionHash ? { selectionHash } : {}),
    fit,
  };
}

/**
 * A model's window: the run's own setting, else what the worker's config said about the model (kept
 * with the run), else the built-in registry's.
 */
export function modelWindow(
  configured: number | undefined,
  models: readonly ResolvedModelInfo[] | undefined,
  model: ModelRef,
): number {
  if (configured) return configured;
  const info = runModelInfo(models, model);
  return info.known ? info.contextWindow : DEFAULT_CONTEXT_WINDOW;
}

/** How long a tool result may be in the conversation of a model with `window` tokens (`ResultFit`). */
export const resultFitFor = (window: number, tools: readonly PinnedTool[]): ResultFit => ({
  maxChars: maxResultChars(window),
  readBack: tools.some((t) => t.name === READ_RESULT_TOOL),
});
