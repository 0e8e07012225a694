/**
 * The tool phase of a turn (docs/design.md, The turn loop): the per-turn limit, the kind's hooks
 * around the tool step, and the synthetic results that keep the conversation valid. A turn whose
 * calls a plan named (`TurnHooks.planned`) writes them as its answer and comes here too.
 */
import type { RunToolOutput } from '../../contracts/agent-activities';
import type { MessageDraft } from '../../contracts/message-drafts';
import type { ToolCallRequest } from '../../contracts/agent-run';
import { appendDrafts } from './user-messages';
import { publishSearchAttributes, updateCurrentDetails, type RunContext } from './run-context';
import { finish, stopRequest } from './run-steps';
import { recordToolResults, runToolCalls } from './tool-step';
import { defaultPhase, end, type TurnHooks, type TurnPoint, type TurnResult } from './turn-hooks';

/** The calls of an answer, and their results when the model call ran them itself. */
export interface AnsweredCalls {
  toolCalls: ToolCallRequest[];
  toolResults?: RunToolOutput[];
}

/** Gives every tool call of an answer a synthetic result, so the conversation stays valid for any later call. */
export async function closeUnanswered(
  ctx: RunContext,
  out: AnsweredCalls,
  text = 'Not run: the run ended before this tool call.',
): Promise<void> {
  if (out.toolCalls.length === 0) return;
  await appendDrafts(
    ctx,
    out.toolCalls.map((c) => ({ kind: 'tool_result', toolCallId: c.id, toolName: c.name, text, isError: true })),
  );
}

/** The tool phase of an answer with tool calls: the limit per turn, the kind's hooks around it. */
export async function toolPhase(ctx: RunContext, out: AnsweredCalls, hooks: TurnHooks): Promise<TurnResult> {
  const phaseAt = hooks.phaseAt ?? defaultPhase;
  const publish = (point: TurnPoint): void => {
    const phase = phaseAt(point);
    if (phase !== undefined) publishSearchAttributes(ctx, phase);
  };
  if (out.toolResults) {
    // The model call ran the calls itself (`inlineToolCalls`); the next call's summary names them.
    ctx.current.ran = { step: ctx.current.step, calls: out.toolCalls };
    publish('tools');
    await recordToolResults(ctx, out.toolCalls, out.toolResults);
    publish('tools_done');
    hooks.afterTools?.(out.toolCalls);
    return { type: 'tools' };
  }
  if (hooks.refuseTools !== undefined) {
    await closeUnanswered(ctx, out, hooks.refuseTools);
    return { type: 'tools_refused', tools: out.toolCalls.map((c) => c.name) };
  }
  const { maxToolCallsPerTurn } = ctx.state.config.limits;
  if (out.toolCalls.length > maxToolCallsPerTurn) {
    await closeUnanswered(
      ctx,
      out,
      `Not run: the turn asked for ${out.toolCalls.length} tool calls; the limit is ${maxToolCallsPerTurn}.`,
    );
    return end(await finish(ctx, 'max_tool_calls'));
  }
  const toRun = (await hooks.beforeTools?.(out.toolCalls)) ?? out.toolCalls;
  if (toRun.length === 0) return { type: 'tools' };
  updateCurrentDetails(ctx, { doing: 'running tools' });
  publish('tools');
  const outcome = await runToolCalls(ctx, toRun);
  publish('tools_done');
  hooks.afterTools?.(toRun);
  if (outcome === 'stopped') return end(await finish(ctx, stopRequest(ctx)?.reason ?? 'stopped'));
  return { type: 'tools' };
}

/**
 * A turn of calls the kind planned (`TurnHooks.planned`): written as an answer of the turn's role,
 * then run through the tool phase like a model's calls.
 */
export async function plannedTurn(ctx: RunContext, calls: ToolCallRequest[], hooks: TurnHooks): Promise<TurnResult> {
  const agentRole = hooks.role;
  const draft: MessageDraft = {
    kind: 'assistant',
    toolCalls: calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
    ...(agentRole ? { agentRole } : {}),
  };
  const [meta] = await appendDrafts(ctx, [draft]);
  meta.toolCallIds = calls.map((c) => c.id);
  return toolPhase(ctx, { toolCalls: calls }, hooks);
}
