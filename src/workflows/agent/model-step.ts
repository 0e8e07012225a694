/**
 * One model call of a turn: call the model of the turn's resolver (`model-resolver.ts`) on the
 * context the context step prepared (`context-step.ts`), with what the run's features ask before it
 * (a budget's clearance) and add to it (the plan recited, a transformed context), taking the pin of
 * the run's tools along while they wait for its first call (`pinning.ts`), and fail over down the
 * chain when a provider keeps failing (`model-failures.ts`). Each step takes the resolver it works
 * on, so a pev role's own model never replaces the run's in shared state.
 */
import { isCancellation } from '@temporalio/workflow';
import { LLM_FAILURE } from '../../contracts/failure-types';
import type { ModelCallInput, ModelCallOutput, ModelCallResult } from '../../contracts/agent-activities';
import { MODEL_VISIBLE_KINDS } from '../../contracts/agent-run';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import type { ModelFailure } from '../../contracts/model-resolution';
import type { CallSettings } from '../../contracts/message-model';
import type { AgentStopReason } from '../../contracts/run-status';
import { toolChoiceOfCall } from '../../policy/call-settings';
import { runContextTokens } from '../../policy/context-plan';
import { knowsModel, rememberModelInfo, runModelInfo } from '../../policy/model-registry';
import { budgetRuleAfterRefusal, failoverAfter } from '../../policy/resolver';
import { DEFAULT_RATE_LIMIT_PATIENCE_MS } from '../../policy/rate-limit-wait';
import { modelCallSummary } from '../../policy/run-summaries';
import { RUN_FEATURES } from '../features';
import type { CallAsk, CallClearance } from './feature';
import { answerOf, type ModelAnswer } from './model-answer';
import {
  WORKER_LOST_RETRIES,
  isPinFailure,
  recordFailure,
  waitOutRateLimit,
  workerLost,
  type RateLimitWaiting,
} from './model-failures';
import { limitedQueue, retryFor, type ModelResolver } from './model-resolver';
import { recordSwitch } from './notes';
import { pinOfCallFailed, pinnedPrompt, tookPin } from './pinning';
import { conversationRef, updateCurrentDetails, type RunContext } from './run-context';
import { RunEnded } from './run-steps';

export type { ModelAnswer } from './model-answer';

const isAnswer = (output: ModelCallResult): output is ModelCallOutput => !('answered' in output);

export type ModelStepResult =
  | { ok: true; output: ModelAnswer }
  | { ok: false; failure: ModelFailure & { message: string } }
  /** A feature refused the call on every model the run's budget rules allow, or the run stopped. */
  | { ok: false; refused: { stopReason: AgentStopReason; message: string } };

/**
 * What a turn sets per call: a kind's role prompt, structured output and tool choice, and the quick
 * tool calls the call may run itself.
 */
export type ModelCallOverrides = Partial<
  Pick<ModelCallInput, 'systemPrompt' | 'settings' | 'recitation' | 'promptHash' | 'inlineTools' | 'agentRole'>
>;

/** Whether the model's next answer is its first to a user message (the last message it sees is one). */
function answersUser(state: RunContext['state']): boolean {
  // The task, which the call writes as it pins the tools.
  if (state.pendingPin) return true;
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const { kind } = state.messages[i];
    if (MODEL_VISIBLE_KINDS.includes(kind)) return kind === 'user';
  }
  return false;
}

/**
 * The call settings of this call: the run's, with what the turn sets over them; a forced tool
 * choice holds for the first answer to a user message.
 */
function callSettings(state: RunContext['state'], own: CallSettings | undefined): Pick<ModelCallInput, 'settings'> {
  const call = { ...state.config.call, ...own };
  const toolChoice = toolChoiceOfCall(call.toolChoice, answersUser(state));
  const settings = toolChoice === undefined ? call : { ...call, toolChoice };
  return Object.keys(settings).length > 0 ? { settings } : {};
}

/** Asks every feature to clear a call; the first refusal stands, and what the others granted is settled. */
export async function clearCall(ctx: RunContext, ask: CallAsk): Promise<CallClearance> {
  const granted: Extract<CallClearance, { ok: true }>[] = [];
  for (const feature of RUN_FEATURES) {
    const answer = feature.beforeCall?.(ctx, ask);
    const clearance = answer instanceof Promise ? await answer : answer;
    if (clearance && !clearance.ok) {
      for (const { settle } of granted) await settle?.();
      return { ...clearance, message: `${feature.name}: ${clearance.message}` };
    }
    if (clearance) granted.push(clearance);
  }
  const settles = granted.flatMap((g) => (g.settle ? [g.settle] : []));
  return {
    ok: true,
    input: Object.assign({}, ...granted.map((g) => g.input)) as Pick<ModelCallInput, 'budget'>,
    ...(settles.length > 0 && { settle: async (spent) => void (await Promise.all(settles.map((s) => s(spent)))) }),
    again: (err) => granted.some((g) => g.again?.(err)),
  };
}

/** What the features add to a call to `model`. */
async function featureInput(ctx: RunContext, model: ModelRef): Promise<Partial<ModelCallInput>> {
  const parts = [];
  for (const feature of RUN_FEATURES) {
    const part = feature.callInput?.(ctx, model);
    parts.push(part instanceof Promise ? await part : part);
  }
  return Object.assign({}, ...parts) as Partial<ModelCallInput>;
}

/** What a turn lets its model call do: shrink its context, run quick tool calls itself. */
export interface TurnCallOptions {
  /** Makes the context smaller (returns whether it changed it), when the provider says it is too long. */
  shrink?: () => Promise<boolean>;
  /** The turn lets its model call run quick tool calls itself (`tool-plan.ts`, `mayInline`). */
  quick?: boolean;
}

/**
 * Calls the model of `resolver` on the current view, failing over to the next model of its
 * chain when the provider keeps failing. When the provider says the context is too long,
 * `shrink` gets one chance to make it smaller.
 */
export async function callModelWithFailover(
  ctx: RunContext,
  resolver: ModelResolver,
  overrides: ModelCallOverrides = {},
  { shrink, quick = false }: TurnCallOptions = {},
): Promise<ModelStepResult> {
  const { state } = ctx;
  let shrunkForLength = false;
  let workerLosses = 0;
  const rateLimited: RateLimitWaiting = { rounds: 0 };
  // The call before returned unmade (its model's calls go through a limit's queue).
  let moved = false;
  for (;;) {
    const model = resolver.state.current;
    const label = modelLabel(model);
    const patienceMs = resolver.policy.rateLimitPatienceMs ?? DEFAULT_RATE_LIMIT_PATIENCE_MS;
    const clearance = await clearCall(ctx, { model, inputTokens: runContextTokens(state), patienceMs });
    if (!clearance.ok) {
      const change = clearance.cheaper && budgetRuleAfterRefusal(resolver.policy, resolver.state, clearance.message);
      if (!change) return { ok: false, refused: clearance };
      await recordSwitch(ctx, change);
      continue;
    }
    updateCurrentDetails(ctx, { model: label, doing: `calling ${label}` });
    const input: ModelCallInput = {
      ...conversationRef(ctx),
      ...(state.view.fromSeq > 0 || state.view.summaryHash ? { view: state.view } : {}),
      toSeq: state.nextSeq,
      writeSeq: state.nextSeq,
      model: label,
      ...(state.config.stream ? { stream: { after: ctx.stream.beforeCall() } } : {}),
      ...(state.maskBefore ? { maskBefore: state.maskBefore } : {}),
      ...(knowsModel(state.models, model) ? {} : { describeModel: true }),
      ...(await featureInput(ctx, model)),
      ...overrides,
      ...callSettings(state, overrides.settings),
      ...clearance.input,
    };
    const queue = limitedQueue(ctx, model);
    const movedTo = moved && queue.taskQueue ? runModelInfo(state.models, model).limitKey : undefined;
    const summary = modelCallSummary(ctx.current.step, label, { ran: ctx.current.ran, movedTo });
    try {
      const output = await ctx.io.callModel(
        { ...input, ...pinnedPrompt(ctx, overrides, quick) },
        { retry: retryFor(resolver), summary, ...queue },
      );
      if (output.pinned) await tookPin(ctx, output.pinned);
      if (!isAnswer(output)) {
        // The pin or the worker showed what the call could not know (the model's limit): call again with it.
        if ('modelInfo' in output) state.models = rememberModelInfo(state.models, output.modelInfo);
        if (clearance.settle) await clearance.settle();
        moved = true;
        continue;
      }
      ctx.current.ran = undefined;
      if (output.modelInfo) state.models = rememberModelInfo(state.models, output.modelInfo);
      const answer = answerOf(output, model, overrides.agentRole);
      if (clearance.settle) await clearance.settle(answer);
      return { ok: true, output: answer };
    } catch (err) {
      if (isCancellation(err) || err instanceof RunEnded) throw err;
      if (clearance.settle) await clearance.settle();
      // A later attempt a feature refused: clear the call again and make it again.
      if (clearance.again?.(err)) continue;
      if (state.pendingPin && isPinFailure(err)) return pinOfCallFailed(ctx, err);
      const failure = recordFailure(ctx, model, err, { attemptsAllowed: resolver.policy.attemptsPerProvider });
      if (workerLost(err) && workerLosses < WORKER_LOST_RETRIES) {
        workerLosses++;
        continue;
      }
      if (failure.type === LLM_FAILURE.contextTooLong && shrink && !shrunkForLength) {
        shrunkForLength = true;
        if (await shrink()) continue;
      }
      const change = failoverAfter(resolver.policy, resolver.state, failure);
      if (!change) {
        if (
          failure.type === LLM_FAILURE.rateLimited &&
          (await waitOutRateLimit(ctx, resolver, rateLimited, err, label))
        )
          continue;
        return { ok: false, failure };
      }
      // An operator's model that failed is not taken again at the next turn.
      state.operatorModel = undefined;
      await recordSwitch(ctx, change);
    }
  }
}
