/**
 * How a run waits out a provider's rate limit: a rate-limited model call is made again after the
 * provider's retry-after (or a growing backoff, whichever is longer, spread by jitter so waiting
 * runs do not return together), for as long as the run's patience lasts.
 */

/** How long a run waits out a rate limit before the model call fails for it. */
export const DEFAULT_RATE_LIMIT_PATIENCE_MS = 30 * 60_000;

/** The longest single wait between two rounds of attempts. */
export const RATE_LIMIT_WAIT_CAP_MS = 30_000;

const FIRST_WAIT_MS = 1_000;

export interface RateLimitWaitInput {
  patienceMs: number;
  /** When the call was first refused for the rate limit (workflow time, ms). */
  limitedSinceMs: number;
  nowMs: number;
  /** Waits taken so far for this call. */
  round: number;
  /** What the provider asked for in its last refusal. */
  retryAfterMs?: number;
  /** A number in [0, 1) that spreads the wait by up to half of it. */
  jitter: number;
}

/** Milliseconds to wait before the next round of attempts; undefined once the patience is spent. */
export function rateLimitWait(input: RateLimitWaitInput): number | undefined {
  const remaining = input.patienceMs - (input.nowMs - input.limitedSinceMs);
  if (!(remaining > 0)) return undefined;
  const backoff = Math.min(RATE_LIMIT_WAIT_CAP_MS, FIRST_WAIT_MS * 2 ** Math.max(0, input.round));
  const base = Math.max(input.retryAfterMs ?? 0, backoff);
  const spread = Math.round(base * (1 + Math.min(Math.max(input.jitter, 0), 1) / 2));
  return Math.max(1, Math.min(spread, remaining));
}

/** A problem with a patience value, or undefined when it can be used. */
export function patienceProblem(ms: unknown): string | undefined {
  if (typeof ms === 'number' && Number.isInteger(ms) && ms >= 0) return undefined;
  return `rateLimitPatienceMs must be a whole number of milliseconds (0 or more), got ${String(ms)}`;
}
