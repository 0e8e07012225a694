import { RATE_LIMIT_WAIT_CAP_MS, patienceProblem, rateLimitWait } from '../../../src/policy/rate-limit-wait';

const base = { patienceMs: 60_000, limitedSinceMs: 0, nowMs: 0, round: 0, jitter: 0 };

describe('rateLimitWait', () => {
  it('waits at least what the provider asked for', () => {
    expect(rateLimitWait({ ...base, retryAfterMs: 7_000 })).toBe(7_000);
  });

  it('backs off further each round when the provider asks for less, up to a cap', () => {
    expect(rateLimitWait({ ...base, retryAfterMs: 1_000, round: 2 })).toBe(4_000);
    expect(rateLimitWait({ ...base, round: 20 })).toBe(RATE_LIMIT_WAIT_CAP_MS);
  });

  it('spreads the wait by up to half with jitter', () => {
    expect(rateLimitWait({ ...base, retryAfterMs: 2_000, jitter: 0.5 })).toBe(2_500);
  });

  it('never waits past the patience, and gives up once it is spent', () => {
    expect(rateLimitWait({ ...base, retryAfterMs: 10_000, nowMs: 55_000 })).toBe(5_000);
    expect(rateLimitWait({ ...base, nowMs: 60_000 })).toBeUndefined();
    expect(rateLimitWait({ ...base, patienceMs: 0 })).toBeUndefined();
  });
});

describe('patienceProblem', () => {
  it('accepts whole milliseconds and names anything else', () => {
    expect(patienceProblem(0)).toBeUndefined();
    expect(patienceProblem(1_800_000)).toBeUndefined();
    expect(patienceProblem(-1)).toMatch(/rateLimitPatienceMs/);
    expect(patienceProblem(1.5)).toMatch(/whole number/);
  });
});
