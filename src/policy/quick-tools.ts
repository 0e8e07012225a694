/**
 * The quick tools whose calls a turn's model call may run itself (`InlineToolCalls`, docs/design.md,
 * History per turn): tools without side effects, each call of which the approval gate lets run at
 * once. The run picks them for each call from its pinned tools; a call that pins the run's tools
 * picks them the same way.
 */
import type { InlineToolCalls, ResultFit } from '../contracts/agent-activities';
import type { PinnedTool, ToolCallRequest } from '../contracts/agent-run';
import type { AgentConfig } from '../contracts/run-spec';
import { callMode, type RunApprovals } from './approval-rules';
import { maxResultChars } from './context-plan';
import { DEFAULT_MAX_TOOL_CALLS_PER_TURN } from './limits';
import { READ_RESULT_TOOL } from './masking';

/**
 * The quick tools among `tools` whose calls a model call may run itself (server tools that run
 * locally and change nothing), with the run's timeouts for them and its calls per turn; undefined
 * when it has none. Whether a call of them may run at once is the approval gate's to say, per call
 * ({@link runsInline}).
 */
export function quickToolCalls(
  tools: readonly PinnedTool[],
  spec: Pick<AgentConfig, 'limits'>,
  selectionHash: string | undefined,
  fit: ResultFit,
): InlineToolCalls | undefined {
  const quick = tools.filter((t) => t.local === true && !t.sideEffects && t.mode === 'server');
  if (quick.length === 0) return undefined;
  const overrides = spec.limits.toolTimeoutsMs ?? {};
  const timeouts = quick.filter((t) => overrides[t.name] !== undefined).map((t) => [t.name, overrides[t.name]]);
  return {
    tools: Object.fromEntries(quick.map((t) => [t.name, t.fingerprint])),
    ...(timeouts.length > 0 ? { timeoutsMs: Object.fromEntries(timeouts) } : {}),
    ...(spec.limits.maxToolCallsPerTurn === DEFAULT_MAX_TOOL_CALLS_PER_TURN
      ? {}
      : { maxCalls: spec.limits.maxToolCallsPerTurn }),
    ...(selectionHash ? { selectionHash } : {}),
    fit,
  };
}

/**
 * Whether a model call runs every call of its answer itself: each a well-formed call to one of the
 * quick tools it was handed, within the calls per turn, and each one the approval gate (`callMode`,
 * the one decision every call of a run goes through) lets run at once. Otherwise the workflow runs
 * them, and asks the same gate again for each.
 */
export function runsInline(
  inline: InlineToolCalls,
  calls: readonly ToolCallRequest[],
  approvals: RunApprovals,
): boolean {
  if (calls.length === 0 || calls.length > (inline.maxCalls ?? DEFAULT_MAX_TOOL_CALLS_PER_TURN)) return false;
  return calls.every(
    (c) =>
      !c.malformed &&
      inline.tools[c.name] !== undefined &&
      callMode({ name: c.name, mode: 'server' }, c.arguments, approvals) === 'server',
  );
}

/** How long a tool result may be in the conversation of a model with `window` tokens (`ResultFit`). */
export const resultFitFor = (window: number, tools: readonly PinnedTool[]): ResultFit => ({
  maxChars: maxResultChars(window),
  readBack: tools.some((t) => t.name === READ_RESULT_TOOL),
});
