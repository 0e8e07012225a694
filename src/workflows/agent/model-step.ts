/**
 * One model call of a turn: pick the model (operator, budget), compact the context when it is
 * too big, call the model, and fail over down the chain when a provider keeps failing.
 */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { ActivityFailure, ApplicationFailure, TimeoutFailure, isCancellation } from '@temporalio/workflow';
import type { ModelCallInput, ModelCallOutput } from '../../contracts/agent-activities';
import { planRecitation } from '../../policy/provider-view';
import { DEFAULT_CONTEXT_WINDOW, contextTokens, planCompaction } from '../../policy/context-plan';
import { failoverAfter, nonRetryableModelFailures, resolveTurnModel } from '../../policy/resolver';
import { type ModelFailure } from '../../contracts/model-resolution';
import { estimateTextTokens } from '../../policy/token-estimate';
import { LLM_FAILURE } from '../../contracts/failure-types';
import { NON_RETRYABLE_LLM_FAILURES, isRetryableLlmFailure } from '../../policy/llm-failure-policy';
import { addCost, addUsage, totalTokens } from '../../contracts/message-model';
import { knowsModel, rememberModelInfo, runModelInfo } from '../../policy/model-registry';
import { modelLabel } from '../../contracts/model-ref';
import type { ModelRetry } from './agent-io';
import { emit, type RunContext } from './run-context';

/** Tokens the tool specs are assumed to take, per tool. */
const TOKENS_PER_TOOL_SPEC = 150;

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
  const message = cause instanceof Error ? cause.message : String(cause);
  return { type: LLM_FAILURE.unknown, retryable: true, message };
}

function retryFor(ctx: RunContext): ModelRetry {
  const { resolver } = ctx.state.config;
  return {
    maximumAttempts: resolver.attemptsPerProvider,
    nonRetryableErrorTypes: nonRetryableModelFailures(resolver, ctx.state.resolver, [
      ...NON_RETRYABLE_LLM_FAILURES,
      AGENT_FAILURE.store,
    ]),
  };
}

/** Applies an operator's or the budget's choice of model for this turn, recording the switch. */
export function resolveModel(ctx: RunContext): void {
  const { state } = ctx;
  const change = resolveTurnModel(
    state.config.resolver,
    state.resolver,
    { totalTokens: totalTokens(state.usage), costUsd: state.cost.total },
    state.operatorModel?.model,
  );
  if (change) emit(ctx, { type: 'provider_switch', fromModel: change.from, toModel: change.to, reason: change.reason });
}

function windowOf(ctx: RunContext): number {
  const configured = ctx.state.config.context.windowTokens;
  if (configured) return configured;
  const info = runModelInfo(ctx.state.models, ctx.state.resolver.current);
  return info.known ? info.contextWindow : DEFAULT_CONTEXT_WINDOW;
}

/**
 * Summarises the older part of the conversation when the context passes the policy's threshold
 * (or at once, when `force`: the provider said the context is too long). Returns whether it did.
 */
export async function compactIfNeeded(ctx: RunContext, force = false): Promise<boolean> {
  const { state } = ctx;
  const overhead = estimateTextTokens(state.config.systemPrompt ?? '') + state.tools.length * TOKENS_PER_TOOL_SPEC;
  const policy = force ? { ...state.config.context, thresholdRatio: 0 } : state.config.context;
  const plan = planCompaction(state.messages, state.view.summaryTokens, overhead, policy, windowOf(ctx));
  if (!plan) return false;
  const toSeq = state.messages[plan.splitIndex].seq;
  const model = state.config.context.summaryModel ?? state.resolver.current;
  try {
    const out = await ctx.io.summarise(
      { conversationId: state.conversationId, view: state.view, toSeq, model },
      retryFor(ctx),
    );
    state.usage = addUsage(state.usage, out.usage);
    state.cost = addCost(state.cost, out.cost);
    const summarised = plan.splitIndex;
    state.messages.splice(0, summarised);
    state.view = { fromSeq: toSeq, summaryHash: out.summaryHash, summaryTokens: out.summaryTokens };
    const tokensAfter = contextTokens(state.messages, state.view.summaryTokens, overhead);
    emit(ctx, {
      type: 'context_compacted',
      summarisedMessages: summarised,
      tokensBefore: plan.tokensBefore,
      tokensAfter,
    });
    return true;
  } catch (err) {
    if (isCancellation(err)) throw err;
    // The run goes on uncompacted; the model call reports a context overflow if there is one.
    const failure = modelFailureOf(err);
    emit(ctx, {
      type: 'model_failure',
      model: modelLabel(model),
      failureType: failure.type,
      retryable: failure.retryable,
      message: `summary failed: ${failure.message}`,
    });
    return false;
  }
}

export type ModelStepResult =
  { ok: true; output: ModelCallOutput } | { ok: false; failure: ModelFailure & { message: string } };

/** What another agent kind sets per call (its role's system prompt, structured output, tool choice). */
export type ModelCallOverrides = Partial<
  Pick<ModelCallInput, 'systemPrompt' | 'responseFormat' | 'toolChoice' | 'recitation' | 'promptHash'>
>;

/** Calls the model on the current view, failing over to the next model of the chain when the provider keeps failing. */
export async function callModelWithFailover(
  ctx: RunContext,
  overrides: ModelCallOverrides = {},
): Promise<ModelStepResult> {
  const { state } = ctx;
  let compactedForLength = false;
  for (;;) {
    const model = state.resolver.current;
    try {
      const output = await ctx.io.callModel(
        {
          conversationId: state.conversationId,
          view: state.view,
          toSeq: state.nextSeq,
          writeSeq: state.nextSeq,
          model,
          systemPrompt: state.config.systemPrompt,
          toolSpecsHash: state.toolSpecsHash,
          maxTokens: state.config.maxTokens,
          temperature: state.config.temperature,
          recitation: planRecitation(state.plan),
          stream: state.config.stream,
          ...(knowsModel(state.models, model) ? {} : { describeModel: true }),
          ...overrides,
        },
        retryFor(ctx),
      );
      if (output.modelInfo) state.models = rememberModelInfo(state.models, output.modelInfo);
      return { ok: true, output };
    } catch (err) {
      if (isCancellation(err)) throw err;
      const failure = modelFailureOf(err);
      emit(ctx, {
        type: 'model_failure',
        model: modelLabel(model),
        failureType: failure.type,
        retryable: failure.retryable,
        message: failure.message,
      });
      if (failure.type === LLM_FAILURE.contextTooLong && !compactedForLength) {
        compactedForLength = true;
        if (await compactIfNeeded(ctx, true)) continue;
      }
      const change = failoverAfter(state.config.resolver, state.resolver, failure);
      if (!change) return { ok: false, failure };
      // An operator's model that failed is not taken again at the next turn.
      state.operatorModel = undefined;
      emit(ctx, { type: 'provider_switch', fromModel: change.from, toModel: change.to, reason: change.reason });
    }
  }
}
