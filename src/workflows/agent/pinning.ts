/**
 * The one module that pins a run's tools (docs/design.md, History per turn). Most runs leave the pin
 * to their first model call, which writes the task, pins and then asks the model in one activity;
 * a run whose first steps need the pin (one that goes on from another run's conversation, or a
 * feature's, `RunFeature.pinsFirst`) pins in a local activity of its first workflow task, and so
 * does a turn of planned calls before any model call. What the pin asks of the worker and what a
 * pinning call does with it are pure (`policy/pinning.ts`).
 */
import { isCancellation } from '@temporalio/workflow';
import type { ModelCallInput } from '../../contracts/agent-activities';
import type { AgentState } from '../../contracts/agent-run';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import type { ModelRef } from '../../contracts/model-ref';
import type { CallPin, PinToolsOutput } from '../../contracts/tool-pin';
import { callPrompt, pinRequest, taskDraft } from '../../policy/pinning';
import { runSpecProblems } from '../../policy/run-spec-problems';
import { openingInput, opensOnMessages } from '../../policy/initial-messages';
import { RUN_FEATURES } from '../features';
import { emit, failureOf, type RunContext } from './run-context';
import { RunEnded, fail } from './run-steps';
import { recordOpened, writeTask } from './task-message';
import { appendDrafts } from './user-messages';

/** Where a pin ends the run: `turnTaken` when it rode with the first model call, whose turn had its number. */
interface PinMoment {
  turnTaken?: boolean;
}

/**
 * First steps of a new conversation: its task written and the run's tools pinned, or the pin left
 * to the first model call (`roles`: models of its own a kind calls besides the run's).
 */
export async function startConversation(ctx: RunContext, roles: readonly ModelRef[] = []): Promise<void> {
  const { state } = ctx;
  if (state.nextSeq > 0) return;
  const { config } = state;
  const ownStart = !opensOnMessages(config);
  if (ownStart) state.nextSeq += 1;
  if (ownStart && !RUN_FEATURES.some((f) => f.pinsFirst?.(config))) {
    state.pendingPin = { roles: [...roles] };
    return;
  }
  await pinNow(ctx, roles, () => openConversation(ctx));
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
  const pinning = ctx.io.pinTools(pinRequest(ctx.state.config, roles, ctx.state.conversationId));
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
  recordPin(ctx, pinned);
  await writing;
  await endOnPinnedProblems(ctx);
}

/** Keeps what the pin gave: the tools, the stored prompt and selection, the models, the task's metadata. */
function recordPin(ctx: RunContext, pinned: PinToolsOutput): void {
  const { state } = ctx;
  if (pinned.opened) recordOpened(state, pinned.opened);
  state.tools = pinned.tools;
  state.toolSpecsHash = pinned.toolSpecsHash;
  state.promptHash = pinned.promptHash;
  state.selectionHash = pinned.selectionHash;
  if (pinned.models) state.models = pinned.models;
  for (const feature of RUN_FEATURES) feature.pinned?.(ctx, pinned);
}

/**
 * Ends the run, before its first model call, when it asks what the worker's entries say its models
 * cannot take, or names a tool it does not have: known only once the tools are pinned (the client
 * checked the entries it knows).
 */
async function endOnPinnedProblems(ctx: RunContext, when: PinMoment = {}): Promise<void> {
  const { state } = ctx;
  const problems = runSpecProblems(state.config, state.models ?? [], state.tools);
  if (problems.length === 0) return;
  giveBackTurn(state, when);
  await fail(ctx, { message: problems.join('; '), type: AGENT_FAILURE.config, retryable: false });
  throw new RunEnded('the run asks what its models or tools cannot give');
}

/** Ends the run whose tools could not be pinned, with its task recorded (the pin writes it first). */
async function pinFailed(ctx: RunContext, err: unknown, when: PinMoment = {}): Promise<never> {
  giveBackTurn(ctx.state, when);
  if (!opensOnMessages(ctx.state.config)) await writeTask(ctx);
  await fail(ctx, { ...failureOf(err), retryable: false });
  throw new RunEnded('the run ended while its tools were pinned');
}

/** A run the pin ends has taken no turn: no model call was made. */
function giveBackTurn(state: AgentState, { turnTaken }: PinMoment): void {
  if (!turnTaken) return;
  state.turn -= 1;
  state.turnsThisRun -= 1;
}

/**
 * The first messages of a conversation that goes on from an earlier run (`session.from`) or from
 * messages the application gave (`session.initialMessages`): those, then the task. A fork without
 * a task goes on from its last turn's tool results.
 */
async function openConversation(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  const from = state.config.session?.from;
  const opening = openingInput(state.config, state.conversationId);
  if (!opening) return;
  let copied;
  try {
    copied = await ctx.io.copyConversation(opening);
  } catch (err) {
    if (isCancellation(err)) throw err;
    await fail(ctx, { ...failureOf(err), retryable: false });
    throw new RunEnded('the run ended while its conversation was opened');
  }
  state.messages.push(...copied.messages);
  state.nextSeq = copied.messages.length;
  emit(ctx, {
    type: 'conversation_continued',
    ...(from ? { fromRun: from.runId } : {}),
    ...(from?.atTurn !== undefined ? { atTurn: from.atTurn } : {}),
    messages: copied.messages.length,
    turns: copied.turns,
  });
  if (state.config.task.trim() === '') {
    if (!copied.endsWithAnswer) return;
    await fail(ctx, {
      message: `${from?.runId} ends with an answer at turn ${copied.turns}: give the new run a task to answer`,
      type: AGENT_FAILURE.config,
      retryable: false,
    });
    throw new RunEnded('the run has nothing to answer');
  }
  await appendDrafts(ctx, [taskDraft(state.config)]);
}

/** Whether a call takes the run's prompt, or a kind gives it one of its own (a role's). */
const promptSource = (own: Partial<ModelCallInput>): CallPin['prompt'] =>
  'systemPrompt' in own || 'promptHash' in own ? 'call' : 'run';

/**
 * What a model call names of the run's prompt and tools, or the pin it takes along while the run's
 * tools wait for its first call (`own`: what the turn sets itself; `quick`: whether the call may run
 * quick tool calls itself).
 */
export function pinnedPrompt(
  ctx: RunContext,
  own: Partial<ModelCallInput>,
  quick: boolean,
): Pick<ModelCallInput, 'systemPrompt' | 'promptHash' | 'toolSpecsHash' | 'pin'> {
  const { state } = ctx;
  const pending = state.pendingPin;
  if (!pending) return callPrompt(state, promptSource(own), state.config.systemPrompt);
  return {
    pin: {
      spec: state.config,
      ...(pending.roles.length ? { roles: pending.roles } : {}),
      prompt: promptSource(own),
      ...(quick ? { quick: { fitModel: state.resolver.current } } : {}),
    },
  };
}

/**
 * What a call that took the pin along brought back: the pin kept (the run ends when it shows a
 * problem), or, when the call failed because the pin did, the run ended.
 */
export async function tookPin(ctx: RunContext, pinned: PinToolsOutput): Promise<void> {
  ctx.state.pendingPin = undefined;
  recordPin(ctx, pinned);
  await endOnPinnedProblems(ctx, { turnTaken: true });
}

/** Ends the run whose first model call failed while pinning its tools. */
export function pinOfCallFailed(ctx: RunContext, err: unknown): Promise<never> {
  ctx.state.pendingPin = undefined;
  return pinFailed(ctx, err, { turnTaken: true });
}
