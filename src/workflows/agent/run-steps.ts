/**
 * Steps at the run level that every agent kind shares (docs/design.md, The turn loop): starting
 * the conversation, ending on a stop or a limit, handing over to a fresh run, and ending.
 */
import { errorText } from '../../common/error-text';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { ActivityFailure, ApplicationFailure, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import { limitReached } from '../../policy/limits';
import { finalStatus } from '../../policy/agent-state';
import type { AgentState, MessageMeta } from '../../contracts/agent-run';
import type { MessageDraft } from '../../contracts/message-drafts';
import type { PinToolsInput, PinToolsOutput } from '../../contracts/tool-pin';
import type { AgentStopReason } from '../../contracts/run-status';
import type { ModelRef } from '../../contracts/model-ref';
import { runModels } from '../../policy/model-ref';
import { subAgentTools } from '../../policy/sub-agents';
import { budgetReason } from '../../policy/child-budget';
import { pinnedProblems, runAsks } from '../../policy/call-settings';
import { pinsWithFirstCall } from '../../policy/first-call-pin';
import { appendDrafts } from './user-messages';
import { takeNotes } from './notes';
import { emit, publishSearchAttributes, type RunContext } from './run-context';

export type LoopOutcome = 'finished' | 'continue_as_new';

/** Updates accepted in one run before it continues as new (Temporal allows 2,000). */
const UPDATES_BEFORE_CONTINUE_AS_NEW = 1_500;

/** Read through a call: handlers change it while the run awaits, which narrowing cannot see. */
export const stopRequest = (ctx: RunContext): AgentState['stopRequested'] => ctx.state.stopRequested;

/** Whether the run should continue as new at the next turn boundary. */
export function shouldContinueAsNew(ctx: RunContext): boolean {
  const { state } = ctx;
  const every = state.config.continueAsNewAfterTurns;
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

/** The failure's own message and type, from a failed activity's cause. */
function failureOf(err: unknown): { message: string; type?: string } {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  const message = errorText(cause);
  return cause instanceof ApplicationFailure && cause.type ? { message, type: cause.type } : { message };
}

/**
 * The patch under which a run's first model call pins its tools (`policy/first-call-pin.ts`). Runs
 * that began before it pinned them in a local activity of their first workflow task, and replay
 * that way. Retired at the next baseline (docs/design.md, Replay and patch policy), once no run that
 * a build without it began can still be open.
 */
const FIRST_CALL_PINS = 'first-call-pins';

/**
 * First steps of a new conversation: pin the tools, learn what the worker's config says about
 * the run's models (`roles`: models of its own a kind calls besides the run's), and write the task.
 * Most runs leave the pin to their first model call, which writes the task, pins and then asks the
 * model in one activity (docs/design.md, History per turn); the others pin here, in one local
 * activity that writes the task first (one that goes on from an earlier run is copied meanwhile).
 */
export async function startConversation(ctx: RunContext, roles: readonly ModelRef[] = []): Promise<void> {
  const { state } = ctx;
  if (state.nextSeq > 0) return;
  const { config } = state;
  if (!config.from) state.nextSeq += 1;
  if (pinsWithFirstCall(config) && patched(FIRST_CALL_PINS)) {
    state.pendingPin = { roles: [...roles] };
    return;
  }
  await pinNow(ctx, roles, () => openConversation(ctx, taskDraft(state)));
}

/** Pins the run's tools now, if its first model call has not yet: for a step that needs them before it. */
export async function ensurePinned(ctx: RunContext): Promise<void> {
  const pending = ctx.state.pendingPin;
  if (!pending) return;
  ctx.state.pendingPin = undefined;
  await pinNow(ctx, pending.roles);
}

/**
 * Pins the run's tools in a local activity, with `opening` (the copy of an earlier run's
 * conversation) running meanwhile. Tools that cannot be pinned (an MCP server that cannot start,
 * after the activity's retries) end the run in error, naming them, with its task written.
 */
async function pinNow(ctx: RunContext, roles: readonly ModelRef[], opening?: () => Promise<void>): Promise<void> {
  const pinning = ctx.io.pinTools(pinInput(ctx.state, roles));
  const writing = opening?.() ?? Promise.resolve();
  // Awaited below on every path but a cancellation, which must not leave its failure unhandled.
  writing.catch(() => undefined);
  let pinned;
  try {
    pinned = await pinning;
  } catch (err) {
    if (isCancellation(err)) throw err;
    await writing;
    return pinFailed(ctx, err);
  }
  recordPin(ctx.state, pinned);
  await writing;
  await endOnPinnedProblems(ctx);
}

/** What pinning the run's tools takes: its tool selection and system prompt, its models, the task to write first. */
export function pinInput(state: AgentState, roles: readonly ModelRef[]): PinToolsInput {
  const { config } = state;
  return {
    conversationId: state.conversationId,
    selection: config.tools,
    ...(config.systemPrompt !== undefined ? { systemPrompt: config.systemPrompt } : {}),
    ...(config.context.mask ? { readBack: true } : {}),
    models: runModels(config, roles),
    ...(config.agents ? { agents: subAgentTools(config.agents) } : {}),
    ...(config.tenant === undefined ? {} : { tenant: config.tenant }),
    ...(config.from ? {} : { open: { startSeq: TASK_SEQ, drafts: [taskDraft(state)] } }),
    ...(config.plan?.length ? { planTool: true } : {}),
  };
}

/** Keeps what the pin gave: the tools, the stored prompt and selection, the models, the task's metadata. */
export function recordPin(state: AgentState, pinned: PinToolsOutput): void {
  if (pinned.opened) recordOpened(state, pinned.opened);
  state.tools = pinned.tools;
  state.toolSpecsHash = pinned.toolSpecsHash;
  state.promptHash = pinned.promptHash;
  state.selectionHash = pinned.selectionHash;
  if (pinned.models) state.models = pinned.models;
  if (pinned.tenantBudget) state.tenantBudget ??= { granted: 0 };
}

/**
 * Ends the run, before its first model call, when it asks what the worker's entries say its models
 * cannot take, or names a tool it does not have: known only once the tools are pinned (the client
 * checked the entries it knows).
 */
export async function endOnPinnedProblems(ctx: RunContext, when: PinMoment = {}): Promise<void> {
  const { state } = ctx;
  const problems = pinnedProblems(runAsks(state.config), state.models ?? [], state.tools);
  if (problems.length === 0) return;
  giveBackTurn(state, when);
  await fail(ctx, { message: problems.join('; '), type: AGENT_FAILURE.config, retryable: false });
  throw new RunEnded('the run asks what its models or tools cannot give');
}

/** Ends the run whose tools could not be pinned, with its task recorded (the pin writes it first). */
export async function pinFailed(ctx: RunContext, err: unknown, when: PinMoment = {}): Promise<never> {
  giveBackTurn(ctx.state, when);
  if (!ctx.state.config.from) await writeTask(ctx);
  await fail(ctx, { ...failureOf(err), retryable: false });
  throw new RunEnded('the run ended while its tools were pinned');
}

/** Where a pin ends the run: `turnTaken` when it rode with the first model call, whose turn had its number. */
interface PinMoment {
  turnTaken?: boolean;
}

/** A run the pin ends has taken no turn: no model call was made. */
function giveBackTurn(state: AgentState, { turnTaken }: PinMoment): void {
  if (!turnTaken) return;
  state.turn -= 1;
  state.turnsThisRun -= 1;
}

/** Log position of a new conversation's task. */
const TASK_SEQ = 0;

/** Writes the task of a new conversation (again, if the pin wrote it) and records its metadata. */
async function writeTask(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  const opened = await ctx.io.appendMessages({
    conversationId: state.conversationId,
    startSeq: TASK_SEQ,
    drafts: [taskDraft(state)],
  });
  recordOpened(state, opened);
}

/** The metadata of the task, before whatever the run wrote while its first model call pinned. */
function recordOpened(state: AgentState, opened: readonly MessageMeta[]): void {
  state.messages = [...opened, ...state.messages].sort((a, b) => a.seq - b.seq);
}

/** The run's task as the conversation's first user message. */
function taskDraft(state: AgentState): MessageDraft {
  const { task, taskHash } = state.config;
  return { kind: 'user', text: task, origin: 'task', ...(taskHash ? { textHash: taskHash } : {}) };
}

/**
 * The first messages of a conversation that goes on from an earlier run (`config.from`): that
 * run's, then the task. A fork without a task goes on from its last turn's tool results.
 */
async function openConversation(ctx: RunContext, task: MessageDraft): Promise<void> {
  const { state } = ctx;
  const from = state.config.from;
  if (!from) return;
  let copied;
  try {
    copied = await ctx.io.copyConversation({
      from: from.conversationId,
      to: state.conversationId,
      ...(from.atTurn !== undefined ? { atTurn: from.atTurn } : {}),
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    await fail(ctx, { ...failureOf(err), retryable: false });
    throw new RunEnded('the run ended while its conversation was opened');
  }
  state.messages.push(...copied.messages);
  state.nextSeq = copied.messages.length;
  emit(ctx, {
    type: 'conversation_continued',
    fromRun: from.runId,
    ...(from.atTurn !== undefined ? { atTurn: from.atTurn } : {}),
    messages: copied.messages.length,
    turns: copied.turns,
  });
  if (state.config.task.trim() === '') {
    if (!copied.endsWithAnswer) return;
    await fail(ctx, {
      message: `${from.runId} ends with an answer at turn ${copied.turns}: give the new run a task to answer`,
      type: AGENT_FAILURE.config,
      retryable: false,
    });
    throw new RunEnded('the run has nothing to answer');
  }
  await appendDrafts(ctx, [task]);
}

/** Ends the run: records the stop reason, the final event and the search attributes. */
export async function finish(ctx: RunContext, reason: AgentStopReason): Promise<LoopOutcome> {
  const { state } = ctx;
  // A run that ends before its first model call pinned its tools still shows its task.
  if (state.pendingPin) {
    state.pendingPin = undefined;
    await writeTask(ctx);
  }
  // Every call has its result by now (a run ends between turns or after closing its calls).
  await takeNotes(ctx);
  state.stopReason = reason;
  state.status = finalStatus(reason);
  if (reason === 'error' && state.error && state.config.hooks?.onError) {
    try {
      await ctx.io.onError(state.config.hooks.onError, {
        conversationId: state.conversationId,
        message: state.error.message,
        failureType: state.error.type,
        retryable: state.error.retryable,
      });
    } catch (err) {
      // A failing on-error hook must not mask the original error.
      if (isCancellation(err)) throw err;
    }
  }
  emit(ctx, {
    type: 'done',
    stopReason: reason,
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
export async function endIfStoppedOrLimited(ctx: RunContext): Promise<LoopOutcome | undefined> {
  const stop = stopRequest(ctx);
  if (stop) return finish(ctx, stop.reason);
  const limit = limitReached(ctx.state.config.limits, ctx.state);
  return limit ? finish(ctx, budgetReason(ctx.state.config, limit)) : undefined;
}
