/**
 * The tenant ledger's bookkeeping as pure functions of its state and the workflow's time
 * (docs/fleet.md, Tenant budgets across runs). Each returns the next state; the ledger workflow
 * keeps it, and its validators use the same functions without keeping anything.
 */
import type {
  BudgetAmount,
  LedgerState,
  LedgerView,
  ReserveInput,
  SettleInput,
  SettledKey,
  TenantBudgetLimits,
} from '../contracts/tenant-budget';
import { periodAt, usd } from './tenant-budget';

/**
 * How long a reservation stays open unsettled: longer than a model call's attempts normally take.
 * A run that was terminated mid-call never settles; its reservation is then charged at its
 * estimate, since the call may have been made (a late settle corrects the charge).
 */
export const RESERVATION_TTL_MS = 15 * 60_000;

/** Settled keys the ledger remembers, so a retried settle or reservation is answered as the first time. */
export const SETTLED_KEYS_KEPT = 1_000;

const ZERO: BudgetAmount = { usd: 0, tokens: 0 };
const add = (a: BudgetAmount, b: BudgetAmount): BudgetAmount => ({ usd: a.usd + b.usd, tokens: a.tokens + b.tokens });
const minus = (a: BudgetAmount, b: BudgetAmount): BudgetAmount => ({
  usd: Math.max(0, a.usd - b.usd),
  tokens: Math.max(0, a.tokens - b.tokens),
});

const keep = (settled: SettledKey[]): SettledKey[] => settled.slice(-SETTLED_KEYS_KEPT);

/** A new ledger whose first period starts at `now`'s. */
export function newLedger(tenant: string, limits: TenantBudgetLimits, now: number): LedgerState {
  const period = periodAt(limits.period, now);
  return {
    tenant,
    limits,
    periodStart: period.start,
    ...(period.end === undefined ? {} : { periodEnd: period.end }),
    spent: ZERO,
    reservations: [],
    settled: [],
  };
}

/**
 * The ledger at `now`: a period that has ended gives way to the one `now` falls in, with nothing
 * spent (open reservations move over), and reservations past their time are charged at their
 * estimate.
 */
export function advance(state: LedgerState, now: number): LedgerState {
  let next = state;
  if (next.periodEnd !== undefined && now >= next.periodEnd) {
    const period = periodAt(next.limits.period, now);
    next = { ...next, periodStart: period.start, periodEnd: period.end, spent: ZERO };
  }
  const expired = next.reservations.filter((r) => r.expiresAt <= now);
  if (expired.length === 0) return next;
  return {
    ...next,
    spent: expired.reduce((total, r) => add(total, r), next.spent),
    reservations: next.reservations.filter((r) => r.expiresAt > now),
    settled: keep([
      ...next.settled,
      ...expired.map(({ key, usd, tokens }) => ({ key, usd, tokens, expired: true as const })),
    ]),
  };
}

/** When the ledger must next look at the time: its period's end or its oldest reservation's expiry. */
export function nextDeadline(state: LedgerState): number | undefined {
  const times = [
    ...(state.periodEnd === undefined ? [] : [state.periodEnd]),
    ...state.reservations.map((r) => r.expiresAt),
  ];
  return times.length ? Math.min(...times) : undefined;
}

/** A new budget: the same period kind keeps its spend; another kind starts a new period at `now`. */
export function configure(state: LedgerState, limits: TenantBudgetLimits, now: number): LedgerState {
  if (limits.period === state.limits.period) return { ...state, limits };
  const fresh = newLedger(state.tenant, limits, now);
  return { ...fresh, reservations: state.reservations, settled: state.settled };
}

const reservedOf = (state: LedgerState): BudgetAmount => state.reservations.reduce(add, ZERO);

/** What the ledger says to a reservation (on an advanced state). */
export type ReserveDecision =
  /** The key was granted (and maybe settled) before: the same answer again, nothing changes. */
  { kind: 'again' } | { kind: 'grant' } | { kind: 'exceeded'; message: string } | { kind: 'busy'; message: string };

const over = (limits: TenantBudgetLimits, amount: BudgetAmount): boolean =>
  amount.usd > limits.maxCostUsd || (limits.maxTokens !== undefined && amount.tokens > limits.maxTokens);

const periodName = (limits: TenantBudgetLimits): string =>
  limits.period === 'total' ? 'in all' : `this ${limits.period}`;

export function reserveDecision(state: LedgerState, input: ReserveInput): ReserveDecision {
  if (state.reservations.some((r) => r.key === input.key) || state.settled.some((s) => s.key === input.key))
    return { kind: 'again' };
  const { limits, spent } = state;
  const withTokens = limits.maxTokens !== undefined;
  const tokensNeeded = withTokens ? ` and ${input.tokens} tokens` : '';
  const needs = `the call to ${input.model} needs up to ${usd(input.usd)}${tokensNeeded}`;
  const tokensSpent = withTokens ? ` and ${spent.tokens} of ${limits.maxTokens} tokens` : '';
  if (over(limits, add(spent, input)))
    return {
      kind: 'exceeded',
      message:
        `tenant ${state.tenant}'s budget is spent: ${usd(spent.usd)} of ${usd(limits.maxCostUsd)}${tokensSpent} ` +
        `${periodName(limits)}; ${needs}`,
    };
  const reserved = reservedOf(state);
  if (over(limits, add(add(spent, reserved), input)))
    return {
      kind: 'busy',
      message:
        `tenant ${state.tenant}'s budget has ${usd(limits.maxCostUsd - spent.usd)} left ${periodName(limits)}, ` +
        `${usd(reserved.usd)} of it reserved by ${state.reservations.length} calls in progress; ${needs}`,
    };
  return { kind: 'grant' };
}

/** The ledger with `input` reserved, when {@link reserveDecision} grants it; unchanged otherwise. */
export function reserve(state: LedgerState, input: ReserveInput, now: number): LedgerState {
  if (reserveDecision(state, input).kind !== 'grant') return state;
  const { key, usd: amount, tokens } = input;
  return {
    ...state,
    reservations: [...state.reservations, { key, usd: amount, tokens, at: now, expiresAt: now + RESERVATION_TTL_MS }],
  };
}

/**
 * The ledger with `input` settled: its reservation replaced by the actual spend. A key settled
 * before changes nothing, unless its reservation had expired and was charged at its estimate: then
 * the charge becomes the actual spend. A key the ledger never saw (or no longer remembers) is
 * counted as spent.
 */
export function settle(state: LedgerState, input: SettleInput): LedgerState {
  const actual = { usd: input.usd, tokens: input.tokens };
  const done = state.settled.find((s) => s.key === input.key);
  if (done && !done.expired) return state;
  const settled: SettledKey = { key: input.key, ...actual };
  if (done)
    return {
      ...state,
      spent: add(minus(state.spent, done), actual),
      settled: state.settled.map((s) => (s === done ? settled : s)),
    };
  return {
    ...state,
    spent: add(state.spent, actual),
    reservations: state.reservations.filter((r) => r.key !== input.key),
    settled: keep([...state.settled, settled]),
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** What `budget show` and every update answer with. */
export function ledgerView(state: LedgerState): LedgerView {
  const reserved = reservedOf(state);
  const { limits, spent } = state;
  return {
    tenant: state.tenant,
    limits,
    period: { start: iso(state.periodStart), ...(state.periodEnd === undefined ? {} : { end: iso(state.periodEnd) }) },
    spent,
    reserved,
    remaining: {
      usd: Math.max(0, limits.maxCostUsd - spent.usd - reserved.usd),
      ...(limits.maxTokens === undefined
        ? {}
        : { tokens: Math.max(0, limits.maxTokens - spent.tokens - reserved.tokens) }),
    },
    openReservations: state.reservations.length,
  };
}
