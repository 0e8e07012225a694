import {
  CUT,
  MIN_RPM,
  afterRefusal,
  paceAt,
  paceReason,
  parsePace,
  pacedRate,
  rateAt,
  type QueuePace,
} from '../../../src/worker/queue-pace';

const T = Date.parse('2026-11-28T10:00:00.000Z');
const refusal = (over: Partial<Parameters<typeof afterRefusal>[1]> = {}) => ({
  at: T,
  retryAfterMs: 1_000,
  callStartedAt: T - 200,
  acceptedRecently: 0,
  ...over,
});

describe('the pace of a limited queue', () => {
  it('is written in the reason of the queue rate and read back from it', () => {
    const paces: QueuePace[] = [
      { requestsPerMinute: 120 },
      { requestsPerMinute: 120, pausedUntil: T },
      { requestsPerMinute: 42, pausedUntil: T, learnedSince: T },
      { requestsPerMinute: 84.5, learnedSince: T, upTo: 120 },
    ];
    for (const pace of paces) expect(parsePace(paceReason(pace))).toEqual(pace);
    expect(paceReason(paces[0])).toBe('durable-agents: 120 model calls a minute');
    expect(paceReason(paces[3])).toBe(
      'durable-agents: 84.5 model calls a minute learned since 2026-11-28T10:00:00.000Z, up to 120',
    );
    // A pause written before rates were learned reads as before.
    expect(
      parsePace('durable-agents: paused until 2026-11-28T10:00:00.000Z after a 429, then 600 model calls a minute'),
    ).toEqual({ requestsPerMinute: 600, pausedUntil: T });
    expect(parsePace('set by hand')).toBeUndefined();
    expect(parsePace(undefined)).toBeUndefined();
  });

  it("a first refusal of an unlimited provider's call paces it at the rate the provider accepted over the retry-after, cut", () => {
    // Nothing accepted yet: one call per retry-after period.
    expect(afterRefusal(undefined, refusal())).toEqual({
      requestsPerMinute: 60 * CUT,
      pausedUntil: T + 1_000,
      learnedSince: T + 1_000,
    });
    // Ten accepted over the 2 s it asks to wait: 5 a second.
    expect(afterRefusal(undefined, refusal({ retryAfterMs: 2_000, acceptedRecently: 10 }))).toMatchObject({
      requestsPerMinute: 300 * CUT,
      pausedUntil: T + 2_000,
    });
  });

  it('a refusal cuts a configured rate, which the learned one rises back to', () => {
    expect(afterRefusal({ requestsPerMinute: 600 }, refusal())).toEqual({
      requestsPerMinute: 420,
      pausedUntil: T + 1_000,
      learnedSince: T + 1_000,
      upTo: 600,
    });
  });

  it('only a call handed out at the pace the last refusal set cuts it again; an earlier one only lengthens the pause', () => {
    const learned = afterRefusal(undefined, refusal())!;
    // The storm's other calls, handed out before the first refusal: no new cut, the same pause.
    expect(afterRefusal(learned, refusal({ at: T + 50, retryAfterMs: 900 }))).toBeUndefined();
    // One whose retry-after ends later lengthens the pause, at the same rate.
    expect(afterRefusal(learned, refusal({ at: T + 500 }))).toEqual({ ...learned, pausedUntil: T + 1_500 });
    // A call handed out after the pause, at the learned rate: cut again.
    const later = T + 31_000;
    const again = afterRefusal(learned, refusal({ at: later, callStartedAt: later - 100 }))!;
    expect(again.requestsPerMinute).toBeCloseTo(pacedRate(learned, later) * CUT, 3);
    expect(again).toMatchObject({ pausedUntil: later + 1_000, learnedSince: later + 1_000 });
  });

  it('never cuts below one call a minute', () => {
    expect(afterRefusal({ requestsPerMinute: 1 }, refusal())?.requestsPerMinute).toBe(MIN_RPM);
  });

  it('a learned rate rises a tenth of itself a minute (at least one call) up to the configured limit', () => {
    const pace = { requestsPerMinute: 42, learnedSince: T };
    expect(pacedRate(pace, T)).toBe(42);
    expect(pacedRate(pace, T + 30_000)).toBeCloseTo(44.1, 3);
    expect(pacedRate({ requestsPerMinute: 2, learnedSince: T }, T + 60_000)).toBe(3);
    expect(pacedRate({ ...pace, upTo: 60 }, T + 10 * 60_000)).toBe(60);
    // Once there, the queue has its configured rate again.
    expect(paceAt({ ...pace, upTo: 60 }, T + 10 * 60_000)).toEqual({ requestsPerMinute: 60 });
  });

  it('is 0 on the server while paused, and gives the rate back once the pause is over', () => {
    const pace = { requestsPerMinute: 42, pausedUntil: T, learnedSince: T };
    expect(rateAt(pace, T - 1)).toBe(0);
    expect(paceAt(pace, T - 1)).toBe(pace);
    expect(paceAt(pace, T)).toEqual({ requestsPerMinute: 42, learnedSince: T });
    expect(rateAt(paceAt(pace, T), T)).toBe(42);
  });
});
