/**
 * One model call of a turn: call the model of the turn's resolver (`model-resolver.ts`) on the
 * context the context step prepared (`context-step.ts`), taking the pin of the run's tools along
 * while they wait for its first call, and fail over down the chain when a provider keeps failing
 * (`model-failures.ts`). Each step takes the resolver it works on, so a pev role's own model never
 * replaces the run's in shared state.
 */
import { isCancellation } from '@temporalio/workflow';
import { LLM_FAILURE } from '../../contracts/failure-types';
import type { ModelCallInput, ModelCallOutput, ModelCallResult } from '../../contracts/agent-activities';
import type { CallPin } from '../../contracts/tool-pin';
import { MODEL_VISIBLE_KINDS } from '../../contracts/agent-run';
import { fullCost, fullUsage, type Cost, type Usage } from '../../contracts/message-model';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import type { ModelFailure } from '../../contracts/model-resolution';
import { callSettingsOf, runAsks, toolChoiceOfCall } from '../../policy/call-settings';
import { runContextTokens } from '../../policy/context-plan';
import { knowsModel, rememberModelInfo } from '../../policy/model-registry';
import { planRecitation } from '../../policy/provider-view';
import { quickToolRules } from '../../policy/quick-tools';
import { callPrompt } from '../../policy/first-call-pin';
import { budgetRuleAfterRefusal, failoverAfter } from '../../policy/resolver';
import { DEFAULT_RATE_LIMIT_PATIENCE_MS } from '../../policy/rate-limit-wait';
import { modelCallSummary } from '../../policy/run-summaries';
import { callCost, reserveBudget, settleBudget, type BudgetRefusal } from './budget-step';
import { contextHook } from './context-hook';
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
import { conversationRef, updateCurrentDetails, type RunContext } from './run-context';
import { RunEnded, endOnPinnedProblems, pinFailed, pinInput, recordPin } from './run-steps';

const isAnswer = (output: ModelCallResult): output is ModelCallOutput => !('answered' in output);

/** A model call's output with what its compact record leaves out restored: what a turn works with. */
export type ModelAnswer = ModelCallOutput & { provider: string; usage: Usage; cost: Cost; text: string };

/**
 * Restores what the workflow knows itself: the model it called, its provider, the calls' ids, the
 * turn's role, zero counts.
 */
function answerOf(out: ModelCallOutput, model: ModelRef, agentRole: string | undefined): ModelAnswer {
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

export type ModelStepResult =
  | { ok: true; output: ModelAnswer }
  | { ok: false; failure: ModelFailure & { message: string } }
  /** The tenant's budget refused the call, on every model the run's budget rules allow. */
  | { ok: false; refused: BudgetRefusal };

/**
 * What a turn sets per call: a kind's role prompt, structured output and tool choice, and the quick
 * tool calls the call may run itself.
 */
export type ModelCallOverrides = Partial<
  Pick<
    ModelCallInput,
    'systemPrompt' | 'responseFormat' | 'toolChoice' | 'recitation' | 'promptHash' | 'inlineTools' | 'agentRole'
  >
>;

/**
 * The run's system prompt and tools as this call names them (`policy/first-call-pin.ts`,
 * `callPrompt`). A call that pins the tools names neither: it takes both from the pin.
 */
function promptOf(
  ctx: RunContext,
  overrides: ModelCallOverrides,
): Pick<ModelCallInput, 'systemPrompt' | 'promptHash' | 'toolSpecsHash'> {
  const { state } = ctx;
  if (state.pendingPin) return {};
  return callPrompt(state, promptSource(overrides), state.config.systemPrompt);
}

/** Whether the call takes the run's prompt, or a kind gives it one of its own (a role's). */
const promptSource = (overrides: ModelCallOverrides): CallPin['prompt'] =>
  'systemPrompt' in overrides || 'promptHash' in overrides ? 'call' : 'run';

/**
 * The pin a call takes along while the run's tools wait for its first model call (docs/design.md,
 * History per turn).
 */
function pinOf(ctx: RunContext, overrides: ModelCallOverrides, quick: boolean): Pick<ModelCallInput, 'pin'> {
  const { state } = ctx;
  const pending = state.pendingPin;
  if (!pending) return {};
  const { windowTokens } = state.config.context;
  return {
    pin: {
      tools: pinInput(state, pending.roles),
      asks: runAsks(state.config),
      prompt: promptSource(overrides),
      ...(quick
        ? {
            quick: {
              rules: quickToolRules(state.config),
              fitModel: state.resolver.current,
              ...(windowTokens ? { windowTokens } : {}),
            },
          }
        : {}),
    },
  };
}

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

/** The run's call settings for this call: a forced tool choice holds for the first answer to a user message. */
function callSettings(state: RunContext['state']): ReturnType<typeof callSettingsOf> {
  const settings = callSettingsOf(state.config);
  const toolChoice = toolChoiceOfCall(settings.toolChoice, answersUser(state));
  return toolChoice === undefined ? settings : { ...settings, toolChoice };
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
  for (;;) {
    const model = resolver.state.current;
    const label = modelLabel(model);
    const patience = resolver.policy.rateLimitPatienceMs ?? DEFAULT_RATE_LIMIT_PATIENCE_MS;
    const clearance = await reserveBudget(ctx, model, callCost(ctx, model, runContextTokens(state)), patience);
    if (!clearance.ok) {
      const change =
        clearance.refusal === 'exceeded' &&
        budgetRuleAfterRefusal(resolver.policy, resolver.state, `tenant budget: ${clearance.message}`);
      if (!change) return { ok: false, refused: clearance };
      await recordSwitch(ctx, change);
      continue;
    }
    updateCurrentDetails(ctx, { model: label, doing: `calling ${label}` });
    const messagesHash = await contextHook(ctx, model);
    try {
      const output = await ctx.io.callModel(
        {
          ...conversationRef(ctx),
          view: state.view,
          toSeq: state.nextSeq,
          writeSeq: state.nextSeq,
          model,
          ...promptOf(ctx, overrides),
          ...callSettings(state),
          recitation: planRecitation(state.plan),
          stream: state.config.stream,
          ...(state.maskBefore ? { maskBefore: state.maskBefore } : {}),
          ...(messagesHash ? { messagesHash } : {}),
          ...(knowsModel(state.models, model) ? {} : { describeModel: true }),
          movable: true,
          ...overrides,
          ...pinOf(ctx, overrides, quick),
        },
        { retry: retryFor(resolver), summary: modelCallSummary(ctx.current.step, label), ...limitedQueue(ctx, model) },
      );
      if (output.pinned) {
        state.pendingPin = undefined;
        recordPin(state, output.pinned);
        await endOnPinnedProblems(ctx, { turnTaken: true });
      }
      if (!isAnswer(output)) {
        // The pin or the worker showed what the call could not know (the model's limit): call again with it.
        if ('modelInfo' in output) state.models = rememberModelInfo(state.models, output.modelInfo);
        await settleBudget(ctx, clearance.hold);
        continue;
      }
      if (output.modelInfo) state.models = rememberModelInfo(state.models, output.modelInfo);
      const answer = answerOf(output, model, overrides.agentRole);
      await settleBudget(ctx, clearance.hold, answer);
      return { ok: true, output: answer };
    } catch (err) {
      if (isCancellation(err) || err instanceof RunEnded) throw err;
      await settleBudget(ctx, clearance.hold);
      if (state.pendingPin && isPinFailure(err)) {
        state.pendingPin = undefined;
        return pinFailed(ctx, err, { turnTaken: true });
      }
      const failure = recordFailure(ctx, model, err);
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
