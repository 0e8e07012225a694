/** A model call's answer as a turn works with it: its compact record with what the workflow knows restored. */
import type { ModelCallOutput, RunToolOutput } from '../../contracts/agent-activities';
import { fullCost, fullUsage, type Cost, type StopReason, type Usage } from '../../contracts/message-model';
import type { MessageMeta } from '../../contracts/agent-run';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';

/** A model call's output with what its compact record leaves out restored. */
export type ModelAnswer = Omit<ModelCallOutput, 'meta' | 'toolResults' | 'stopReason'> & {
  meta: MessageMeta;
  stopReason: StopReason;
  toolResults?: RunToolOutput[];
  provider: string;
  usage: Usage;
  cost: Cost;
  text: string;
};

/**
 * Restores what the workflow knows itself: the answer's kind, the model it called, its provider, the
 * calls' ids, the turn's role, a `tool_use` stop, zero counts, the calls' results that did not fail.
 */
export function answerOf(out: ModelCallOutput, model: ModelRef, agentRole: string | undefined): ModelAnswer {
  const ids = out.toolCalls.map((c) => c.id);
  const { toolResults, ...rest } = out;
  return {
    ...rest,
    meta: {
      ...out.meta,
      kind: 'assistant',
      model: out.meta.model ?? modelLabel(model),
      ...(agentRole ? { agentRole } : {}),
      ...(ids.length > 0 ? { toolCallIds: ids } : {}),
    },
    provider: model.provider,
    stopReason: out.stopReason ?? 'tool_use',
    usage: fullUsage(out.usage),
    cost: fullCost(out.cost),
    text: out.text ?? '',
    ...(toolResults ? { toolResults: toolResults.map((r) => ({ ...r, isError: r.isError === true })) } : {}),
  };
}
