/**
 * A run's tools pinned by its first model call (docs/design.md, History per turn): which runs take
 * the pin along with that call, what the call then takes from the pin, and when the call is not
 * made because the run must decide something with the pin first.
 */
import type { ModelCallInput } from '../contracts/agent-activities';
import type { CallPin, PinToolsOutput } from '../contracts/tool-pin';
import type { AgentConfig } from '../contracts/agent-run';
import type { ModelRef } from '../contracts/model-ref';
import { pinnedProblems } from './call-settings';
import { runModelInfo } from './model-registry';
import { modelWindow, quickToolCalls, resultFitFor } from './quick-tools';

/**
 * Whether the run's first model call pins its tools. Not when something before that call needs
 * what the pin gives: a conversation that goes on from another run (its copy and the pin run side
 * by side in the first workflow task), a tenant (each call reserves against the tenant's budget,
 * which the pin says it has), a `resolveModel` or `transformContext` hook (they read the conversation
 * the pin opens with the task).
 */
export const pinsWithFirstCall = (config: AgentConfig): boolean =>
  config.from === undefined &&
  config.tenant === undefined &&
  config.hooks?.resolveModel === undefined &&
  config.hooks?.transformContext === undefined;

/**
 * Whether the pin shows something the run decides before any model call, so the call that pinned
 * makes none: a problem with what the run asks (the run ends with it), or a model whose calls go
 * through a limit's task queue (the run calls it there).
 */
export function callWaitsForPin(pinned: PinToolsOutput, asks: CallPin['asks'], model: ModelRef): boolean {
  if (runModelInfo(pinned.models, model).limitKey) return true;
  return pinnedProblems(asks, pinned.models ?? [], pinned.tools).length > 0;
}

/**
 * The prompt and tool specs a model call names: the run's stored prompt by hash (it names the tool
 * specs), else the run's inline prompt beside the specs' hash; a call that brings a prompt of its
 * own (a kind's role) names only the specs. `refs` are what pinning the tools gave.
 */
export function callPrompt(
  refs: Pick<PinToolsOutput, 'promptHash' | 'toolSpecsHash'>,
  prompt: CallPin['prompt'],
  systemPrompt?: string,
): Pick<ModelCallInput, 'systemPrompt' | 'promptHash' | 'toolSpecsHash'> {
  const tools = refs.toolSpecsHash ? { toolSpecsHash: refs.toolSpecsHash } : {};
  if (prompt === 'call') return tools;
  if (refs.promptHash) return { promptHash: refs.promptHash };
  return systemPrompt === undefined ? tools : { systemPrompt, ...tools };
}

/**
 * The call as made with the pin: its prompt and tool specs as {@link callPrompt} names them, and the
 * quick tool calls it may run itself, picked from the pinned tools as the run picks them.
 */
export function pinnedCall(pinned: PinToolsOutput, call: ModelCallInput, pin: CallPin): ModelCallInput {
  const { quick } = pin;
  const inline =
    quick &&
    quickToolCalls(
      pinned.tools,
      quick.rules,
      pinned.selectionHash,
      resultFitFor(modelWindow(quick.windowTokens, pinned.models, quick.fitModel), pinned.tools),
    );
  return { ...call, ...callPrompt(pinned, pin.prompt), ...(inline ? { inlineTools: inline } : {}) };
}
