/**
 * One model call of a turn: pick the model (operator, budget), call the model on the context the
 * context step prepared (`context-step.ts`), and fail over down the chain when a provider keeps
 * failing. Each step takes the resolver it works on, so a pev role's own model never replaces
 * the run's in shared state.
 */
import { errorText } from '../../common/error-text';
import { AGENT_FAILURE, LLM_FAILURE } from '../../contracts/failure-types';
import { TimeoutType } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  condition,
  isCancellation,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { ModelCallInput, ModelCallOutput } from '../../contracts/agent-activities';
import { planRecitation } from '../../policy/provider-view';
import { DEFAULT_CONTEXT_WINDOW, runContextTokens } from '../../policy/context-plan';
import {
  budgetRuleAfterRefusal,
  failoverAfter,
  nonRetryableModelFailures,
  resolveTurnModel,
} from '../../policy/resolver';
import type { ModelFailure, ResolverPolicy, ResolverState } from '../../contracts/model-resolution';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import {
  NON_RETRYABLE_LLM_FAILURES,
  isRetryableLlmFailure,
  retryAfterInDetails,
} from '../../policy/llm-failure-policy';
import { fullCost, fullUsage, totalTokens, type Cost, type Usage } from '../../contracts/message-model';
import { knowsModel, rememberModelInfo, runModelInfo } from '../../policy/model-registry';
import { modelCallSummary } from '../../policy/run-summaries';
import type { ModelRetry } from './agent-io';
import { conversationRef, emit, updateCurrentDetails, workflowNow, type RunContext } from './run-context';
import { callSettingsOf, toolChoiceOfCall } from '../../policy/call-settings';
import { MODEL_VISIBLE_KINDS } from '../../contracts/agent-run';
import { DEFAULT_RATE_LIMIT_PATIENCE_MS, rateLimitWait } from '../../policy/rate-limit-wait';
import { llmQueueOf } from '../../policy/llm-queues';
import { callCost, reserveBudget, settleBudget, type BudgetRefusal } from './budget-step';
import { rateLimitNote } from '../../policy/log-notes';
import { recordSwitch, writeNotes } from './notes';
import { contextHook } from './context-hook';

/**
 * Where a call's model comes from: a resolver policy (primary, fallbacks, budget rules) and the
 * resolver state reached on it (the current model, failover position). The policy functions move
 * `state` in place, so the caller keeps its failover position by keeping the object.
 */
export interface ModelResolver {
  policy: ResolverPolicy;
  state: ResolverState;
}

/** The run's own resolver: its configured policy and the resolver state in its state. */
export const runResolver = (ctx: RunContext): ModelResolver => ({
  policy: ctx.state.config.resolver,
  state: ctx.state.resolver,
});

/**
 * A model call whose attempts all ended in heartbeat timeouts lost its workers (killed, or stuck
 * so they could not heartbeat), not its provider: it is made again on the same model, without
 * failing over, up to this many times per model step.
 */
const WORKER_LOST_RETRIES = 5;

const workerLost = (err: unknown): boolean =>
  err instanceof ActivityFailure &&
  err.cause instanceof TimeoutFailure &&
  err.cause.timeoutType === TimeoutType.HEARTBEAT;

/** A failed model activity as a failure type, never its message text. */
export function modelFailureOf(err: unknown): ModelFailure & { message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const type = cause.type ?? LLM_FAILURE.unknown;
    return {
      type,
      retryable: !cause.nonRetryable && (isRetryableLlmFailure(type) || !type.startsWith('Llm')),
      message: cause.message,
    };
  }
  if (cause instanceof TimeoutFailure) return { type: LLM_FAILURE.timeout, retryable: true, message: cause.message };
  const message = errorText(cause);
  return { type: LLM_FAILURE.unknown, retryable: true, message };
}

/** The task queue of the model's limit, when the worker said its calls are limited. */
export function limitedQueue(ctx: RunContext, model: ModelRef): { taskQueue?: string } {
  const { limitKey } = runModelInfo(ctx.state.models, model);
  if (!limitKey) return {};
  return { taskQueue: llmQueueOf(ctx.state.config.activityTaskQueue ?? workflowInfo().taskQueue, limitKey) };
}

/** The delay a refused call's provider asked for (the failure's details), if it said. */
function retryAfterOf(err: unknown): number | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? retryAfterInDetails(cause.details) : undefined;
}

/** What a model step keeps while it waits out a rate limit. */
interface RateLimitWaiting {
  since?: number;
  rounds: number;
}

/**
 * After a call refused for a rate limit that the run cannot fail over from: waits what the
 * provider asked for (at least a growing backoff) and returns true to make the call again, or
 * false once the run's patience is spent. A stop request ends the wait (and the step).
 */
async function waitOutRateLimit(
  ctx: RunContext,
  resolver: ModelResolver,
  waiting: RateLimitWaiting,
  err: unknown,
  label: string,
): Promise<boolean> {
  const now = workflowNow();
  waiting.since ??= now;
  const delay = rateLimitWait({
    patienceMs: resolver.policy.rateLimitPatienceMs ?? DEFAULT_RATE_LIMIT_PATIENCE_MS,
    limitedSinceMs: waiting.since,
    nowMs: now,
    round: waiting.rounds,
    retryAfterMs: retryAfterOf(err),
    // The workflow's uuid4 is seeded per run: replay-safe randomness.
    jitter: parseInt(uuid4().slice(0, 8), 16) / 2 ** 32,
  });
  if (delay === undefined || ctx.state.stopRequested) return false;
  const seconds = Math.ceil(delay / 1000);
  if (waiting.rounds === 0) await writeNotes(ctx, [{ kind: 'system_event', text: rateLimitNote(label, seconds) }]);
  waiting.rounds++;
  updateCurrentDetails(ctx, { doing: `waiting ${seconds} s for ${label}'s rate limit` });
  await condition(() => ctx.state.stopRequested !== undefined, delay, {
    summary: `rate limit: wait ${seconds} s for ${label}`,
  });
  return ctx.state.stopRequested === undefined;
}

/** Records a failed model or summary call as an event; returns the failure. */
export function recordFailure(
  ctx: RunContext,
  model: ModelRef,
  err: unknown,
  prefix = '',
): ReturnType<typeof modelFailureOf> {
  const failure = modelFailureOf(err);
  emit(ctx, {
    type: 'model_failure',
    model: modelLabel(model),
    failureType: failure.type,
    retryable: failure.retryable,
    message: `${prefix}${failure.message}`,
  });
  return failure;
}

/** The retry policy of a model or summary call on `resolver`. */
export function retryFor(resolver: ModelResolver): ModelRetry {
  return {
    maximumAttempts: resolver.policy.attemptsPerProvider,
    nonRetryableErrorTypes: nonRetryableModelFailures(resolver.policy, resolver.state, [
      ...NON_RETRYABLE_LLM_FAILURES,
      AGENT_FAILURE.store,
    ]),
  };
}

/**
 * Applies an operator's or the budget's choice of model to `resolver` for this turn, recording the
 * switch. An operator's request moves every resolver once: each keeps whether it has taken it.
 */
export async function resolveModel(ctx: RunContext, resolver: ModelResolver): Promise<void> {
  const { state } = ctx;
  const change = resolveTurnModel(
    resolver.policy,
    resolver.state,
    { totalTokens: totalTokens(state.usage), costUsd: state.cost.total },
    state.operatorModel?.model,
  );
  if (change) await recordSwitch(ctx, change);
}

/** The model's window: what the worker's config said about it (kept in the run's state), else the registry's. */
export function windowOf(ctx: RunContext, model: ModelRef): number {
  const configured = ctx.state.config.context.windowTokens;
  if (configured) return configured;
  const info = runModelInfo(ctx.state.models, model);
  return info.known ? info.contextWindow : DEFAULT_CONTEXT_WINDOW;
}

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
 * The run's system prompt and tools: one hash once pinned (the stored prompt names the tool specs),
 * inline prompt and specs hash in runs pinned before that. A kind's own prompt comes with the specs hash.
 */
function promptOf(
  ctx: RunContext,
  overrides: ModelCallOverrides,
): Pick<ModelCallInput, 'systemPrompt' | 'promptHash' | 'toolSpecsHash'> {
  const { promptHash, toolSpecsHash, config } = ctx.state;
  const tools = toolSpecsHash ? { toolSpecsHash } : {};
  if ('systemPrompt' in overrides || 'promptHash' in overrides) return tools;
  return promptHash ? { promptHash } : { systemPrompt: config.systemPrompt, ...tools };
}

/** Whether the model's next answer is its first to a user message (the last message it sees is one). */
function answersUser(state: RunContext['state']): boolean {
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

/**
 * Calls the model of `resolver` on the current view, failing over to the next model of its
 * chain when the provider keeps failing. When the provider says the context is too long,
 * `shrink` gets one chance to make it smaller (it returns whether it changed the context).
 */
export async function callModelWithFailover(
  ctx: RunContext,
  resolver: ModelResolver,
  overrides: ModelCallOverrides = {},
  shrink?: () => Promise<boolean>,
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
          ...overrides,
        },
        { retry: retryFor(resolver), summary: modelCallSummary(ctx.current.step, label), ...limitedQueue(ctx, model) },
      );
      if (output.modelInfo) state.models = rememberModelInfo(state.models, output.modelInfo);
      const answer = answerOf(output, model, overrides.agentRole);
      await settleBudget(ctx, clearance.hold, answer);
      return { ok: true, output: answer };
    } catch (err) {
      if (isCancellation(err)) throw err;
      await settleBudget(ctx, clearance.hold);
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
