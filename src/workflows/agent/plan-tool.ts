/**
 * The model's own plan tool (`update_plan`, docs/plans.md): answered by the workflow from its
 * state, in the tool phase like any call (its `tool_start` and `tool_execution` events, stop and
 * steering between calls). It ticks, reopens or adds items of the plan the run recites.
 */
import type { MessageDraft } from '../../contracts/message-drafts';
import type { ToolCallRequest } from '../../contracts/agent-run';
import { planText, updatePlan } from '../../policy/plan';
import { previewText } from '../../policy/previews';
import { emit, type RunContext } from './run-context';

/** Applies one call's update to the run's plan; its result is the plan as it is now, or why nothing changed. */
export function planToolCall(ctx: RunContext, call: ToolCallRequest, args: Record<string, unknown>): MessageDraft {
  const { state } = ctx;
  const updated = updatePlan(state.plan ?? [], args);
  if (!updated.problems) state.plan = updated.plan;
  const isError = updated.problems !== undefined;
  const text = isError ? `The plan was not changed: ${updated.problems.join('; ')}.` : planText(updated.plan);
  emit(ctx, {
    type: 'tool_execution',
    toolCallId: call.id,
    tool: call.name,
    durationMs: 0,
    isError,
    preview: previewText(text),
  });
  return { kind: 'tool_result', toolCallId: call.id, toolName: call.name, text, isError };
}
