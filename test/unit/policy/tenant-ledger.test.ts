import type { LedgerState, ReserveInput } from '../../../src/contracts/tenant-budget';
import { amountProblems, budgetLimitsProblems, callEstimate, periodAt } from '../../../src/policy/tenant-budget';
import {
  RESERVATION_TTL_MS,
  SETTLED_KEYS_KEPT,
  advance,
  configure,
  newLedger,
  nextDeadline,
  settle,
} from '../../../src/policy/tenant-ledger';
import { request, reserveDecision } from '../../../src/policy/ledger-line';
import { ledgerView } from '../../../src/policy/ledger-view';

const T0 = Date.UTC(2026, 10, 26, 13, 30);
const call = (key: string, usd: number, tokens = 100) => ({ key, usd, tokens, model: 'anthropic/claude-sonnet-4-6' });
/** The ledger with a call reserved when it fits (a request of no run: nothing waits in line). */
const reserve = (state: LedgerState, input: ReserveInput, now: number): LedgerState => request(state, input, now).state;
const ledger = (maxCostUsd = 1, extra: Partial<LedgerState> = {}): LedgerState => ({
  ...newLedger('acme', { maxCostUsd, period: 'day' }, T0),
  ...extra,
});

describe('tenant ledger', () => {
  it('a period is the UTC day or month a time falls in; a total has no end', () => {
    expect(periodAt('day', T0)).toEqual({ start: Date.UTC(2026, 10, 26), end: Date.UTC(2026, 10, 27) });
    expect(periodAt('month', T0)).toEqual({ start: Date.UTC(2026, 10, 1), end: Date.UTC(2026, 11, 1) });
    expect(periodAt('month', Date.UTC(2026, 11, 31, 23, 59))).toEqual({
      start: Date.UTC(2026, 11, 1),
      end: Date.UTC(2027, 0, 1),
    });
    expect(periodAt('total', T0)).toEqual({ start: T0 });
  });

  it('grants a reservation the budget covers and counts it as reserved', () => {
    const state = reserve(ledger(), call('run#1', 0.4), T0);
    expect(ledgerView(state)).toMatchObject({
      spent: { usd: 0, tokens: 0 },
      reserved: { usd: 0.4, tokens: 100 },
      remaining: { usd: 0.6 },
      openReservations: 1,
      period: { start: '2026-11-26T00:00:00.000Z', end: '2026-11-27T00:00:00.000Z' },
    });
  });

  it('refuses as exceeded what spend and estimate pass, as busy what only open reservations stand in the way of', () => {
    const spent = settle(reserve(ledger(), call('a#1', 0.5), T0), { key: 'a#1', usd: 0.7, tokens: 10 });
    expect(reserveDecision(spent, call('b#1', 0.31))).toMatchObject({
      kind: 'exceeded',
      message: expect.stringMatching(/acme's budget is spent: \$0\.7000 of \$1\.00 this day; .*needs up to \$0\.3100/),
    });
    const held = reserve(spent, call('a#2', 0.2), T0);
    expect(reserveDecision(held, call('b#1', 0.2))).toMatchObject({
      kind: 'busy',
      message: expect.stringMatching(/\$0\.3000 left this day, \$0\.2000 of it reserved by 1 calls in progress/),
    });
    expect(reserveDecision(held, call('b#1', 0.1)).kind).toBe('grant');
  });

  it('refuses by tokens when the budget has a token limit', () => {
    const state = newLedger('acme', { maxCostUsd: 100, maxTokens: 1_000, period: 'total' }, T0);
    expect(reserveDecision(state, call('a#1', 0.01, 1_001)).kind).toBe('exceeded');
    expect(reserveDecision(state, call('a#1', 0.01, 1_000)).kind).toBe('grant');
  });

  it('answers a reservation or a settlement sent again as the first time, changing nothing', () => {
    const once = reserve(ledger(), call('a#1', 0.4), T0);
    expect(reserveDecision(once, call('a#1', 0.4)).kind).toBe('again');
    expect(reserve(once, call('a#1', 0.4), T0 + 5)).toBe(once);
    const settled = settle(once, { key: 'a#1', usd: 0.3, tokens: 50 });
    expect(settle(settled, { key: 'a#1', usd: 0.3, tokens: 50 })).toBe(settled);
    expect(reserveDecision(settled, call('a#1', 0.4)).kind).toBe('again');
    expect(ledgerView(settled)).toMatchObject({ spent: { usd: 0.3, tokens: 50 }, reserved: { usd: 0, tokens: 0 } });
  });

  it('charges a reservation left open past its time at its estimate, and a late settle corrects the charge', () => {
    const held = reserve(ledger(), call('a#1', 0.4), T0);
    expect(nextDeadline(held)).toBe(T0 + RESERVATION_TTL_MS);
    const expired = advance(held, T0 + RESERVATION_TTL_MS);
    expect(ledgerView(expired)).toMatchObject({ spent: { usd: 0.4 }, reserved: { usd: 0 }, openReservations: 0 });
    const late = settle(expired, { key: 'a#1', usd: 0.1, tokens: 20 });
    expect(ledgerView(late).spent).toEqual({ usd: 0.1, tokens: 20 });
    expect(settle(late, { key: 'a#1', usd: 0.1, tokens: 20 })).toBe(late);
  });

  it('starts the spend again when the period rolls over, keeping open reservations', () => {
    const beforeMidnight = Date.UTC(2026, 10, 26, 23, 59);
    const spent = settle(reserve(ledger(), call('a#1', 0.5), T0), { key: 'a#1', usd: 0.5, tokens: 9 });
    const state = reserve(spent, call('a#2', 0.2), beforeMidnight);
    const tomorrow = advance(state, Date.UTC(2026, 10, 27, 0, 0, 1));
    expect(ledgerView(tomorrow)).toMatchObject({
      spent: { usd: 0, tokens: 0 },
      reserved: { usd: 0.2 },
      period: { start: '2026-11-27T00:00:00.000Z' },
    });
    expect(advance(state, beforeMidnight + 1)).toBe(state);
  });

  it('a new budget of the same period keeps the spend; another period starts afresh', () => {
    const state = settle(reserve(ledger(), call('a#1', 0.5), T0), { key: 'a#1', usd: 0.5, tokens: 9 });
    expect(ledgerView(configure(state, { maxCostUsd: 2, period: 'day' }, T0 + 1))).toMatchObject({
      spent: { usd: 0.5 },
      remaining: { usd: 1.5 },
    });
    expect(ledgerView(configure(state, { maxCostUsd: 2, period: 'month' }, T0 + 1))).toMatchObject({
      spent: { usd: 0 },
      period: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' },
    });
  });

  it("a budget moved to a total has no end: the day's end passing keeps what was spent since", () => {
    const moved = configure(ledger(), { maxCostUsd: 2, period: 'total' }, T0 + 1);
    expect(moved.periodEnd).toBeUndefined();
    expect(nextDeadline(moved)).toBeUndefined();
    const spent = settle(reserve(moved, call('a#1', 0.5), T0 + 2), { key: 'a#1', usd: 0.5, tokens: 9 });
    const nextDay = Date.UTC(2026, 10, 27, 1);
    expect(ledgerView(advance(spent, nextDay))).toMatchObject({ spent: { usd: 0.5 }, remaining: { usd: 1.5 } });
    expect(ledgerView(advance(spent, nextDay)).period).toEqual({ start: new Date(T0 + 1).toISOString() });
  });

  it('remembers a bounded number of settled keys', () => {
    let state = ledger(1e9);
    for (let i = 0; i < SETTLED_KEYS_KEPT + 5; i++) state = settle(state, { key: `k#${i}`, usd: 0, tokens: 1 });
    expect(state.settled).toHaveLength(SETTLED_KEYS_KEPT);
    expect(state.settled[0].key).toBe('k#5');
    expect(state.spent.tokens).toBe(SETTLED_KEYS_KEPT + 5);
  });

  it('refuses limits and amounts it cannot use, one line each', () => {
    expect(budgetLimitsProblems({ maxCostUsd: 5, period: 'month' })).toEqual([]);
    expect(budgetLimitsProblems({ maxCostUsd: 0, period: 'month' })).toEqual([
      "the budget's cost must be a number of USD above 0, got 0",
    ]);
    expect(budgetLimitsProblems({ maxCostUsd: 5, maxTokens: -1, period: 'week', extra: 1 })).toEqual([
      "the budget's tokens must be a whole number above 0, got -1",
      "the budget's period must be one of day, month, total, got week",
      'a budget has no field "extra"',
    ]);
    expect(amountProblems({ key: '', usd: -1, tokens: 1.5 })).toHaveLength(3);
    expect(amountProblems({ key: 'a#1', usd: 0, tokens: 0 })).toEqual([]);
  });

  it("a call's estimate is its input at the dearer of input and cache-write prices and its output limit", () => {
    const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    expect(callEstimate(prices, 1_000, 200)).toEqual({ usd: (1_000 * 3.75 + 200 * 15) / 1e6, tokens: 1_200 });
  });
});
