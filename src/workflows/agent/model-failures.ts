/**
 * A failed model call as the run sees it: its failure type (never its message text), the event it
 * records, a lost worker, a pin that failed, and the wait a rate limit asks for.
 */
import { RetryState, TimeoutType } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, TimeoutFailure, condition, uuid4 } from '@temporalio/workflow';
import { errorText } from '../../common/error-text';
import { LLM_FAILURE, PIN_FAILURES } from '../../contracts/failure-types';
import type { ModelFailure } from '../../contracts/model-resolution';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import { isRetryableLlmFailure, retryAfterInDetails } from '../../policy/llm-failure-policy';
import { rateLimitNote } from '../../policy/log-notes';
import { DEFAULT_RATE_LIMIT_PATIENCE_MS, rateLimitWait } from '../../policy/rate-limit-wait';
import type { ModelResolver } from './model-resolver';
import { writeNotes } from './notes';
import { emit, updateCurrentDetails, workflowNow, type RunContext } from './run-context';

/** A failure of pinning the run's tools, which a call that pins them passes on (the run ends with it). */
export function isPinFailure(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && PIN_FAILURES.some((type) => type === cause.type);
}

/**
 * A model call whose attempts all ended in heartbeat timeouts lost its workers (killed, or stuck
 * so they could not heartbeat), not its provider: it is made again on the same model, without
 * failing over, up to this many times per model step.
 */
export const WORKER_LOST_RETRIES = 5;

export const workerLost = (err: unknown): boolean =>
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

/** The delay a refused call's provider asked for (the failure's details), if it said. */
function retryAfterOf(err: unknown): number | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? retryAfterInDetails(cause.details) : undefined;
}

/** What a model step keeps while it waits out a rate limit. */
export interface RateLimitWaiting {
  since?: number;
  rounds: number;
}

/**
 * After a call refused for a rate limit that the run cannot fail over from: waits what the
 * provider asked for (at least a growing backoff) and returns true to make the call again, or
 * false once the run's patience is spent. A stop request ends the wait (and the step).
 */
export async function waitOutRateLimit(
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

/**
 * Records a failed model or summary call as an event, with its attempts when it made all
 * `attemptsAllowed` (its retry policy's); returns the failure.
 */
export function recordFailure(
  ctx: RunContext,
  model: ModelRef,
  err: unknown,
  call: { attemptsAllowed: number; prefix?: string },
): ReturnType<typeof modelFailureOf> {
  const failure = modelFailureOf(err);
  const allMade = err instanceof ActivityFailure && err.retryState === RetryState.MAXIMUM_ATTEMPTS_REACHED;
  emit(ctx, {
    type: 'model_failure',
    model: modelLabel(model),
    failureType: failure.type,
    retryable: failure.retryable,
    message: `${call.prefix ?? ''}${failure.message}`,
    ...(allMade ? { attempts: call.attemptsAllowed } : {}),
  });
  return failure;
}
