/**
 * Steps at the run level that every agent kind shares (docs/design.md, The turn loop): ending on a
 * stop or a limit, handing over to a fresh run, and ending.
 */
import { workflowInfo } from '@temporalio/workflow';
import { limitReached } from '../../policy/limits';
import { finalStatus } from '../../policy/agent-state';
import type { AgentState } from '../../contracts/agent-run';
import type { AgentStopReason } from '../../contracts/run-status';
import { budgetReason } from '../../policy/child-budget';
import { RUN_FEATURES } from '../features';
import type { LoopOutcome } from './feature';
import { writeTask } from './task-message';
import { emit, publishSearchAttributes, type RunContext } from './run-context';

export type { LoopOutcome } from './feature';

/** Updates accepted in one run before it continues as new (Temporal allows 2,000). */
const UPDATES_BEFORE_CONTINUE_AS_NEW = 1_500;

/** Read through a call: handlers change it while the run awaits, which narrowing cannot see. */
export const stopRequest = (ctx: RunContext): AgentState['stopRequested'] => ctx.state.stopRequested;

/** Whether the run should continue as new at the next turn boundary. */
export function shouldContinueAsNew(ctx: RunContext): boolean {
  const { state } = ctx;
  const every = state.config.session?.continueAsNewAfterTurns;
  return (
    workflowInfo().continueAsNewSuggested ||
    (every !== undefined && state.turnsThisRun >= every) ||
    state.updatesHandled >= UPDATES_BEFORE_CONTINUE_AS_NEW
  );
}

/**
 * Thrown by a step that ended the run itself (its stop reason and error are in state); the run
 * scaffold takes it as the kind's `finished`, so a kind never checks for it.
 */
export class RunEnded extends Error {
  override name = 'RunEnded';
}

/** Ends the run: records the stop reason, the final event and the search attributes. */
export async function finish(ctx: RunContext, reason: AgentStopReason): Promise<LoopOutcome> {
  const { state } = ctx;
  // A run that ends before its first model call pinned its tools still shows its task.
  if (state.pendingPin) {
    state.pendingPin = undefined;
    await writeTask(ctx);
  }
  state.stopReason = reason;
  state.status = finalStatus(reason);
  // Every call has its result by now (a run ends between turns or after closing its calls).
  const named = reason === 'completed' ? (ctx.endReason?.() ?? reason) : reason;
  for (const feature of RUN_FEATURES) {
    const ending = feature.ending?.(ctx, named);
    if (ending instanceof Promise) await ending;
  }
  emit(ctx, {
    type: 'done',
    stopReason: named,
    finalText: state.finalText,
    turns: state.turn,
    usage: state.usage,
    costUsd: state.cost.total,
  });
  publishSearchAttributes(ctx, 'done');
  return 'finished';
}

export async function fail(
  ctx: RunContext,
  error: { message: string; type?: string; retryable: boolean },
): Promise<LoopOutcome> {
  ctx.state.error = error;
  emit(ctx, { type: 'error', message: error.message, failureType: error.type, retryable: error.retryable });
  return finish(ctx, 'error');
}

/**
 * Ends the run when a stop was requested (a cancellation counts as one) or a run-wide limit is
 * reached. Every turn starts with it; a kind calls it before it writes a prompt for a turn, so no
 * prompt is left unanswered by a turn that will not happen.
 */
export function endIfStoppedOrLimited(ctx: RunContext): Promise<LoopOutcome> | undefined {
  const stop = stopRequest(ctx);
  if (stop) return finish(ctx, stop.reason);
  const limit = limitReached(ctx.state.config.limits, ctx.state);
  return limit ? finish(ctx, budgetReason(ctx.state.config, limit)) : undefined;
}
