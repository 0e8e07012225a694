/**
 * A provider's rate limit, as a responder of the fake: it accepts `perSecond` requests a second and
 * refuses the rest with 429 and a `retry-after`, metered as providers meter, by a bucket that holds
 * `burst` requests (default one second's worth, at least one) and refills continuously.
 *
 * ```ts
 * fake.respond(rateLimited({ perSecond: 1 }, () => reply.text('Done.')));
 * ```
 */
import { reply, type FakeResponder } from './script';

export interface RateLimitOptions {
  /** Requests accepted a second. */
  perSecond: number;
  /** Requests the bucket holds. Default: `perSecond`, at least 1. */
  burst?: number;
  /** What a refusal's `retry-after` header asks for, in whole seconds. Default 1. */
  retryAfterSeconds?: number;
}

/** `answer` for the requests the limit accepts, a 429 with `retry-after` for the rest. */
export function rateLimited(options: RateLimitOptions, answer: FakeResponder): FakeResponder {
  const { perSecond, retryAfterSeconds = 1 } = options;
  if (!(perSecond > 0)) throw new RangeError(`perSecond must be above 0, got ${perSecond}`);
  const burst = options.burst ?? Math.max(1, perSecond);
  let tokens = burst;
  let filled = Date.now();
  return (request) => {
    const now = Date.now();
    tokens = Math.min(burst, tokens + ((now - filled) / 1_000) * perSecond);
    filled = now;
    if (tokens < 1) return reply.error(429, { headers: { 'retry-after': String(retryAfterSeconds) } });
    tokens -= 1;
    return answer(request);
  };
}
