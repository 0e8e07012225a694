/** A model call's answer as a turn works with it: its compact record with what the workflow knows restored. */
import type { ModelCallOutput } from '../../contracts/agent-activities';
import { fullCost, fullUsage, type Cost, type Usage } from '../../contracts/message-model';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';

/** A model call's output with what its compact record leaves out restored. */
export type ModelAnswer = ModelCallOutput & { provider: string; usage: Usage; cost: Cost; text: string };

/**
 * Restores what the workflow knows itself: the model it called, its provider, the calls' ids, the
 * turn's role, zero counts.
 */
export function answerOf(out: ModelCallOutput, model: ModelRef, agentRole: string | undefined): ModelAnswer {
  const ids = out.toolCalls.map((c) => c.id);
  return {
    ...out,
    meta: {
      ...out.meta,
      model: out.meta.model ?? modelLabel(model),
      ...(agentRole ? { agentRole } : {}),
      ...(ids.length > 0 ? { toolCallIds: ids } : {}),
    },
    provider: model.provider,
    usage: fullUsage(out.usage),
    cost: fullCost(out.cost),
    text: out.text ?? '',
  };
}
