import type { LedgerState, ReserveInput } from '../../../src/contracts/tenant-budget';
import { promote, request } from '../../../src/policy/ledger-line';
import { ledgerView } from '../../../src/policy/ledger-view';
import {
  ADMISSION_CALLS,
  ESTIMATED_OUTPUT_TOKENS,
  admissionAmount,
  outputEstimate,
} from '../../../src/policy/tenant-budget';
import {
  RESERVATION_TTL_MS,
  advance,
  carriedLedger,
  newLedger,
  release,
  settle,
  settleCall,
} from '../../../src/policy/tenant-ledger';

const T0 = Date.UTC(2026, 10, 26, 13, 30);
const MODEL = 'anthropic/claude-sonnet-4-6';
const ledger = (maxCostUsd = 0.1): LedgerState => newLedger('acme', { maxCostUsd, period: 'total' }, T0);

/** A run's admission: its first call (0.01) and its expected cost (three calls). */
const admission = (run: string): ReserveInput => ({
  key: `${run}#1`,
  model: MODEL,
  usd: 0.01,
  tokens: 100,
  run,
  admit: { usd: 0.03, tokens: 300 },
});
const call = (run: string, n: number, usd = 0.01): ReserveInput => ({
  key: `${run}#${n}`,
  model: MODEL,
  usd,
  tokens: 100,
  run,
});

/** Takes each request in turn; fails the test on a refusal the ledger's validator would give. */
function take(state: LedgerState, ...inputs: ReserveInput[]): { state: LedgerState; kinds: string[] } {
  let next = state;
  const kinds: string[] = [];
  for (const input of inputs) {
    const taken = request(next, input, T0);
    next = taken.state;
    kinds.push(taken.decision.kind);
  }
  return { state: next, kinds };
}

describe('the tenant ledger line', () => {
  it('admits runs while their expected costs fit, holds each cost, and lines up the rest in order', () => {
    const { state, kinds } = take(ledger(), ...['a', 'b', 'c', 'd', 'e'].map(admission));
    expect(kinds).toEqual(['grant', 'grant', 'grant', 'queue', 'queue']);
    expect(ledgerView(state)).toMatchObject({
      reserved: { usd: 0.03 },
      held: { runs: 3 },
      queue: { waiting: 2, first: [{ run: 'd', admission: true }, { run: 'e' }] },
    });
    expect(ledgerView(state).held?.usd).toBeCloseTo(0.06, 10);
    expect(ledgerView(state).remaining.usd).toBeCloseTo(0.01, 10);
  });

  it('lets a call of a run at work go ahead of runs waiting to start, drawing on its hold', () => {
    const { state } = take(ledger(), ...['a', 'b', 'c', 'd'].map(admission));
    const next = request(state, call('a', 2), T0);
    expect(next.decision.kind).toBe('grant');
    expect(next.state.holds.find((h) => h.run === 'a')?.usd).toBeCloseTo(0.01, 10);
    expect(next.state.queue.map((q) => q.run)).toEqual(['d']);
  });

  it('serves the line from its head when budget frees, and refuses a head that can never fit', () => {
    let { state } = take(ledger(), ...['a', 'b', 'c', 'd', 'e'].map(admission));
    // a ends after one call of 0.005: its hold goes back, and d fits beside b's and c's.
    state = release(settle(state, { key: 'a#1', usd: 0.005, tokens: 90 }), { run: 'a' }, T0);
    let served = promote(state, T0);
    expect(served.told).toEqual([{ run: 'd', answer: { key: 'd#1', granted: true, admitted: true } }]);
    expect(served.state.queue.map((q) => q.run)).toEqual(['e']);
    // b, c and d spend 0.025 each and end: 0.08 is spent, e's 0.03 can never fit.
    state = served.state;
    for (const run of ['b', 'c', 'd'])
      state = release(settle(state, { key: `${run}#1`, usd: 0.025, tokens: 90 }), { run }, T0);
    served = promote(state, T0);
    expect(served.told).toEqual([
      { run: 'e', answer: { key: 'e#1', granted: false, message: expect.stringMatching(/was not started/) } },
    ]);
    expect(served.state.queue).toEqual([]);
    // Asked again, the refused request is refused again.
    expect(request(served.state, admission('e'), T0).decision).toMatchObject({ kind: 'exceeded' });
  });

  it('keeps a waiting call of a run at work ahead of runs waiting to start', () => {
    let { state } = take(ledger(0.05), admission('a'));
    state = take(state, admission('b')).state;
    // a's calls outgrow its hold: the third needs more than is free.
    state = take(state, call('a', 2), call('a', 3)).state;
    const waiting = request(state, call('a', 4, 0.03), T0);
    expect(waiting.decision.kind).toBe('queue');
    expect(waiting.state.queue.map((q) => q.key)).toEqual(['a#4', 'b#1']);
  });

  it("charges a lost attempt of a call at its estimate and grants the next attempt beside other runs' holds", () => {
    let { state } = take(ledger(0.05), admission('a'), admission('b'));
    // Attempt 2 of a#1: attempt 1's reservation was never settled.
    const retry = request(state, { key: 'a#1@2', call: 'a#1', holder: 'a', model: MODEL, usd: 0.01, tokens: 100 }, T0);
    expect(retry.decision.kind).toBe('grant');
    expect(retry.lost).toEqual({ usd: 0.01, tokens: 100 });
    state = retry.state;
    expect(state.spent).toEqual({ usd: 0.01, tokens: 100 });
    // The answer settles attempt 2; a failed call charges its attempts still open.
    state = settle(state, { key: 'a#1@2', call: 'a#1', usd: 0.004, tokens: 80 });
    expect(state.spent.usd).toBeCloseTo(0.014, 10);
    state = take(state, call('a', 2)).state;
    const failed = settleCall(state, { key: 'a#2', call: 'a#2', usd: 0, tokens: 0, lost: true });
    expect(failed.lost).toEqual({ usd: 0.01, tokens: 100 });
    expect(failed.state.reservations).toEqual([]);
    // A late settle of a lost attempt replaces its charge by what it cost.
    expect(settle(failed.state, { key: 'a#1', usd: 0.004, tokens: 80 }).spent.usd).toBeCloseTo(0.018, 10);
  });

  it('counts the runs the budget stopped, mid-task or before they started', () => {
    const state = release(
      release(ledger(), { run: 'a', stopped: { reason: 'spent', midTask: true } }, T0),
      { run: 'b', stopped: { reason: 'not started', midTask: false } },
      T0,
    );
    expect(ledgerView(state).stops).toMatchObject({
      midTask: 1,
      beforeStart: 1,
      recent: [
        { run: 'a', midTask: true },
        { run: 'b', reason: 'not started' },
      ],
    });
  });

  it('lets a hold lapse after its time without a reservation, charging nothing', () => {
    const { state } = take(ledger(), admission('a'));
    const later = advance(settle(state, { key: 'a#1', usd: 0.005, tokens: 10 }), T0 + RESERVATION_TTL_MS);
    expect(later.holds).toEqual([]);
    expect(later.spent.usd).toBeCloseTo(0.005, 10);
  });

  it('reads a ledger carried by the version before the line, and no other', () => {
    const { holds: _h, queue: _q, stops: _s, ...v1 } = ledger();
    expect(carriedLedger(v1 as LedgerState, 1)).toMatchObject({ holds: [], queue: [], stops: { midTask: 0 } });
    expect(carriedLedger(ledger(), 3)).toBeUndefined();
  });
});

describe('what a run reserves', () => {
  it('estimates a call without maxTokens at a typical answer, or the most the run wrote, within the model', () => {
    expect(outputEstimate({ maxTokens: 500, thinkingBudget: 1_000, modelLimit: 64_000 })).toBe(1_500);
    expect(outputEstimate({ modelLimit: 64_000 })).toBe(ESTIMATED_OUTPUT_TOKENS);
    expect(outputEstimate({ modelLimit: 64_000, largestOutput: 3_000 })).toBe(3_000);
    expect(outputEstimate({ modelLimit: 512 })).toBe(512);
  });

  it("admits a run at three calls' estimate, fewer with a lower turn limit, within its own cost limit", () => {
    const first = { usd: 0.01, tokens: 100 };
    expect(admissionAmount(first, { maxTurns: 50 })).toEqual({ usd: 0.01 * ADMISSION_CALLS, tokens: 300 });
    expect(admissionAmount(first, { maxTurns: 2 })).toEqual({ usd: 0.02, tokens: 200 });
    expect(admissionAmount(first, { maxTurns: 50, maxCostUsd: 0.015 })).toEqual({ usd: 0.015, tokens: 300 });
    expect(admissionAmount(first, { maxTurns: 50, expectedCostUsd: 0.5 })).toEqual({ usd: 0.5, tokens: 300 });
    expect(admissionAmount(first, { maxTurns: 50, expectedCostUsd: 0.001 }).usd).toBe(0.01);
  });
});

describe('a ledger whose runs hold their expected cost until they end', () => {
  const holding = (): LedgerState => ({ ...ledger(), holdSavings: true });
  const runs = ['a', 'b', 'c', 'd'];
  /** a, b and c admitted, d in line; each first call then costs 0.002 of the 0.01 it reserved. */
  const firstCallsSettled = (state: LedgerState): LedgerState =>
    ['a', 'b', 'c'].reduce((s, run) => settle(s, { key: `${run}#1`, usd: 0.002, tokens: 20 }), state);
  const dAdmitted = [{ run: 'd', answer: { key: 'd#1', granted: true, admitted: true } }];

  it("gives what a call saves back to its run's hold, so savings admit no run the first runs' later calls would starve", () => {
    const admitted = take(holding(), ...runs.map(admission));
    expect(admitted.kinds).toEqual(['grant', 'grant', 'grant', 'queue']);
    let state = firstCallsSettled(admitted.state);
    expect(promote(state, T0).told).toEqual([]);
    expect(state.holds.find((h) => h.run === 'a')?.usd).toBeCloseTo(0.028, 10);
    // A ledger without it lets the three savings admit d.
    expect(promote(firstCallsSettled(take(ledger(), ...runs.map(admission)).state), T0).told).toEqual(dAdmitted);

    // a's later calls draw its hold to nothing; the hold stays, so what they save comes back too.
    state = take(state, call('a', 2, 0.014), call('a', 3, 0.014)).state;
    expect(state.holds.find((h) => h.run === 'a')?.usd).toBeCloseTo(0, 10);
    state = settle(state, { key: 'a#3', usd: 0.004, tokens: 20 });
    expect(state.holds.find((h) => h.run === 'a')?.usd).toBeCloseTo(0.01, 10);

    // a ends: its hold goes back and d is admitted; a call that settles after its run ended holds nothing.
    state = settle(release(state, { run: 'a' }, T0), { key: 'a#2', usd: 0.002, tokens: 20 });
    expect(state.holds.map((h) => h.run)).toEqual(['b', 'c']);
    expect(promote(state, T0).told).toEqual(dAdmitted);
  });
});
