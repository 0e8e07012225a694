/**
 * Pinning a run's tools (docs/design.md, History per turn), as pure decisions: what the pin asks of
 * the worker, derived from the run's spec; when a first model call that took the pin along makes
 * no request (the run must decide something with the pin first); the prompt and tool specs a call
 * names; and the quick calls a call that pinned may run itself.
 */
import type { ModelCallInput } from '../contracts/agent-activities';
import type { MessageDraft } from '../contracts/message-drafts';
import type { ModelRef } from '../contracts/model-ref';
import type { AgentConfig } from '../contracts/run-spec';
import type { CallPin, PinToolsInput, PinToolsOutput } from '../contracts/tool-pin';
import { runModelInfo } from './model-registry';
import { runModels } from './model-ref';
import { quickToolCalls, resultFitFor } from './quick-tools';
import { modelWindow } from './context-plan';
import { runSpecProblems } from './run-spec-problems';
import { opensOnMessages } from './initial-messages';
import { subAgentTools } from './sub-agents';

/** Log position of a new conversation's task. */
export const TASK_SEQ = 0;

/** The run's task as the conversation's first user message. */
export const taskDraft = ({ task, taskHash }: Pick<AgentConfig, 'task' | 'taskHash'>): MessageDraft => ({
  kind: 'user',
  text: task,
  origin: 'task',
  ...(taskHash ? { textHash: taskHash } : {}),
});

/**
 * What pinning the tools of the run of `spec` asks of the worker: its tool selection and prompt,
 * its models (`roles`: those of a kind's own steps), its sub-agents, the built-in tools it is
 * offered, and, for a conversation of its own, the task to write first.
 */
export function pinRequest(spec: AgentConfig, roles: readonly ModelRef[], conversationId: string): PinToolsInput {
  return {
    conversationId,
    selection: spec.tools,
    ...(spec.systemPrompt !== undefined ? { systemPrompt: spec.systemPrompt } : {}),
    ...(spec.context.mask ? { readBack: true } : {}),
    models: runModels(spec, roles),
    ...(spec.agents ? { agents: subAgentTools(spec.agents) } : {}),
    ...(spec.fleet?.tenant === undefined ? {} : { tenant: spec.fleet.tenant }),
    ...(opensOnMessages(spec) ? {} : { open: { startSeq: TASK_SEQ, drafts: [taskDraft(spec)] } }),
    ...(spec.plan?.length ? { planTool: true } : {}),
  };
}

/**
 * Whether the pin shows something the run decides before any model call, so the call that pinned
 * makes none: a problem with what the run asks of its models or tools (the run ends with it), or a
 * model whose calls go through a limit's task queue (the run calls it there).
 */
export function callWaitsForPin(pinned: PinToolsOutput, spec: AgentConfig, model: ModelRef): boolean {
  if (runModelInfo(pinned.models, model).limitKey) return true;
  return runSpecProblems(spec, pinned.models ?? [], pinned.tools).length > 0;
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
  const { quick, spec } = pin;
  const window = quick && modelWindow(spec.context.windowTokens, pinned.models, quick.fitModel);
  const inline = window && quickToolCalls(pinned.tools, spec, pinned.selectionHash, resultFitFor(window, pinned.tools));
  return { ...call, ...callPrompt(pinned, pin.prompt), ...(inline ? { inlineTools: inline } : {}) };
}
