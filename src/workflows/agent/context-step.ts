/**
 * The context of a model call (docs/design.md, Masking; Compaction): the masking boundary moves,
 * the older part is summarised when the context passes its threshold, and while summaries fail
 * (they back off over a growing number of turns) the context is fitted without a model call. A
 * request the workflow estimates to be over the model's window is never sent.
 */
import { isCancellation } from '@temporalio/workflow';
import {
  planCompaction,
  planFit,
  runContextTokens,
  runOverheadTokens,
  type CompactionPlan,
} from '../../policy/context-plan';
import { DEFAULT_CACHE_PRICES, nextMaskBefore, type MaskCache } from '../../policy/masking';
import { runModelInfo } from '../../policy/model-registry';
import { droppedLeadTokens } from '../../policy/provider-view';
import { addCost, addUsage } from '../../contracts/message-model';
import { recordFailure } from './model-failures';
import { limitedQueue, retryFor, windowOf, type ModelResolver } from './model-resolver';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import { summariseSummary } from '../../policy/run-summaries';
import { emit, updateCurrentDetails, type RunContext } from './run-context';
import { clearCall } from './model-step';
import { DEFAULT_RATE_LIMIT_PATIENCE_MS } from '../../policy/rate-limit-wait';

/** Turns a failed summary waits before the next try: 2, 4, 8 … up to this many. */
const MAX_SUMMARY_BACKOFF_TURNS = 64;

/**
 * The prompt cache of the model about to be called: its prices as shares of uncached input (the
 * assumed ratios for an unknown model; none for a known model without cache prices), and the calls
 * expected from here on: as many as the run has made, within its turn limit.
 */
function maskCacheOf(ctx: RunContext, model: ModelRef): MaskCache | undefined {
  const { state } = ctx;
  const info = runModelInfo(state.models, model);
  const { input, cacheRead, cacheWrite } = info.prices;
  const prices = !info.known
    ? DEFAULT_CACHE_PRICES
    : cacheRead > 0 && input > 0
      ? { read: cacheRead / input, write: Math.max(cacheWrite, input) / input }
      : undefined;
  if (!prices) return undefined;
  const callsLeft = Math.max(1, Math.min(state.turn, state.config.limits.maxTurns - state.turn + 1));
  return { prices, callsLeft };
}

/** What fitting found: whether it changed the context, and whether it is still over the window. */
export interface ContextFit {
  changed: boolean;
  over?: { tokens: number; window: number };
}

/** Summarises the part of the log before the plan's split; on failure records it and returns false. */
async function summarise(ctx: RunContext, resolver: ModelResolver, plan: CompactionPlan): Promise<boolean> {
  const { state } = ctx;
  const toSeq = state.messages[plan.splitIndex].seq;
  const model = state.config.context.summaryModel ?? resolver.state.current;
  const summary = summariseSummary(plan.splitIndex, modelLabel(model));
  const patienceMs = resolver.policy.rateLimitPatienceMs ?? DEFAULT_RATE_LIMIT_PATIENCE_MS;
  const clearance = await clearCall(ctx, { model, inputTokens: plan.tokensBefore, own: true, patienceMs });
  if (!clearance.ok) return false;
  updateCurrentDetails(ctx, { doing: summary });
  try {
    const out = await ctx.io.summarise(
      { conversationId: state.conversationId, view: state.view, toSeq, model, ...clearance.input },
      { retry: retryFor(resolver), summary, ...limitedQueue(ctx, model) },
    );
    await clearance.settle?.(out);
    state.usage = addUsage(state.usage, out.usage);
    state.cost = addCost(state.cost, out.cost);
    state.messages.splice(0, plan.splitIndex);
    state.view = { fromSeq: toSeq, summaryHash: out.summaryHash, summaryTokens: out.summaryTokens };
    emit(ctx, {
      type: 'context_compacted',
      summarisedMessages: plan.splitIndex,
      tokensBefore: plan.tokensBefore,
      tokensAfter: runContextTokens(state),
    });
    return true;
  } catch (err) {
    if (isCancellation(err)) throw err;
    await clearance.settle?.();
    recordFailure(ctx, model, err, {
      attemptsAllowed: resolver.policy.attemptsPerProvider,
      prefix: 'summary failed: ',
    });
    return false;
  }
}

/** Masks every answered result and leaves the oldest messages out of view until the context is under `target`. */
function fitWithoutSummary(ctx: RunContext, target: number): boolean {
  const { state } = ctx;
  const tokensBefore = runContextTokens(state);
  const maskBefore = state.maskBefore ?? 0;
  const fit = planFit(state.messages, state.view.summaryTokens, runOverheadTokens(state), maskBefore, target);
  const masked = fit.maskBefore !== maskBefore;
  if (!masked && fit.dropIndex === 0) return false;
  state.maskBefore = fit.maskBefore;
  if (fit.dropIndex > 0) {
    // Without a summary, the view opens with a note and the conversation's first message (the task).
    const lead = state.view.summaryHash || state.view.fromSeq > 0 ? undefined : state.messages[0].tokens;
    const dropped = state.messages.splice(0, fit.dropIndex);
    state.view = {
      ...state.view,
      fromSeq: state.messages[0]?.seq ?? dropped[dropped.length - 1].seq + 1,
      ...(lead !== undefined ? { summaryTokens: droppedLeadTokens(lead) } : {}),
    };
  }
  emit(ctx, {
    type: 'context_trimmed',
    maskBefore: fit.maskBefore,
    droppedMessages: fit.dropIndex,
    tokensBefore,
    tokensAfter: runContextTokens(state),
  });
  return true;
}

/**
 * Prepares the context of the next call. The masking boundary moves (policy/masking.ts); past the
 * threshold the older part is summarised, unless summaries are backing off; when still over it,
 * the context is fitted without a model call. `force`: the provider said the context is too long,
 * so a summary is tried at once and the context is brought down to the share a summary keeps.
 */
export async function fitContext(ctx: RunContext, resolver: ModelResolver, force = false): Promise<ContextFit> {
  const { state } = ctx;
  const { context } = state.config;
  if (context.mask) {
    const cache = maskCacheOf(ctx, resolver.state.current);
    state.maskBefore = nextMaskBefore(state.messages, state.maskBefore ?? 0, context.mask, cache);
  }
  const window = windowOf(ctx, resolver.state.current);
  const policy = force ? { ...context, thresholdRatio: 0 } : context;
  const plan = planCompaction(
    state.messages,
    state.view.summaryTokens,
    runOverheadTokens(state),
    policy,
    window,
    state.maskBefore,
  );
  let changed = false;
  // No plan: nothing to summarise, yet the request may still be over the window (what every call carries).
  if (plan) {
    const backoff = state.summaryBackoff;
    if (force || !backoff || state.turn >= backoff.retryAtTurn) {
      changed = await summarise(ctx, resolver, plan);
      if (changed) state.summaryBackoff = undefined;
      else {
        const failures = (backoff?.failures ?? 0) + 1;
        const wait = Math.min(2 ** failures, MAX_SUMMARY_BACKOFF_TURNS);
        state.summaryBackoff = { failures, retryAtTurn: state.turn + wait };
      }
    }
    const target = window * (force ? context.keepRecentRatio : context.thresholdRatio);
    if (runContextTokens(state) > target && fitWithoutSummary(ctx, target)) changed = true;
  }
  const tokens = runContextTokens(state);
  return tokens > window ? { changed, over: { tokens, window } } : { changed };
}
