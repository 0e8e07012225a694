/**
 * The tenant ledger's bookkeeping as pure functions of its state and the workflow's time
 * (docs/fleet.md, Tenant budgets across runs): periods, expiry, settlements and what ended runs
 * give back. Each returns the next state; the ledger workflow keeps it, and its validators use the
 * same functions without keeping anything. Who gets the budget next is `ledger-line.ts`.
 */
import type {
  BudgetAmount,
  BudgetReservation,
  LedgerState,
  LedgerStops,
  ReleaseInput,
  RunHold,
  SettleInput,
  SettledKey,
  TenantBudgetLimits,
} from '../contracts/tenant-budget';
import { ZERO, addAmount, minAmount, minusAmount } from './budget-amounts';
import { periodAt } from './tenant-budget';

/**
 * How long a reservation stays open unsettled: longer than a model call's attempts normally take.
 * A run that was terminated mid-call never settles; its reservation is then charged at its
 * estimate, since the call may have been made (a late settle corrects the charge). A run's hold
 * lapses after as long without a reservation of the run.
 */
export const RESERVATION_TTL_MS = 15 * 60_000;

/** Settled keys the ledger remembers, so a retried settle or reservation is answered as the first time. */
export const SETTLED_KEYS_KEPT = 1_000;

/** Stopped runs the ledger names (it counts them all). */
export const STOPS_KEPT = 10;

const amountOf = ({ usd, tokens }: BudgetAmount): BudgetAmount => ({ usd, tokens });

const NO_STOPS: LedgerStops = { midTask: 0, beforeStart: 0, recent: [] };

/** The settled keys the ledger keeps: the newest {@link SETTLED_KEYS_KEPT}. */
export const keepSettled = (settled: SettledKey[]): SettledKey[] => settled.slice(-SETTLED_KEYS_KEPT);

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
    holds: [],
    queue: [],
    stops: NO_STOPS,
  };
}

/**
 * A carried ledger in this code's shape: version 1 had no holds, line or stops (docs/design.md,
 * Replay and patch policy). Undefined for a version this code does not read.
 */
export function carriedLedger(carry: LedgerState, version: number | undefined): LedgerState | undefined {
  if (version === 2) return carry;
  if (version !== 1) return undefined;
  return { ...carry, holds: [], queue: [], stops: NO_STOPS };
}

/** Charges `expired` reservations at their estimates, remembering that a late settle may correct them. */
function charge(state: LedgerState, expired: BudgetReservation[]): LedgerState {
  if (expired.length === 0) return state;
  const gone = new Set(expired.map((r) => r.key));
  return {
    ...state,
    spent: expired.reduce((total, r) => addAmount(total, r), state.spent),
    reservations: state.reservations.filter((r) => !gone.has(r.key)),
    settled: keepSettled([
      ...state.settled,
      ...expired.map((r) => ({ key: r.key, ...amountOf(r), expired: true as const })),
    ]),
  };
}

/**
 * The ledger at `now`: a period that has ended gives way to the one `now` falls in, with nothing
 * spent and no runs stopped (open reservations and holds move over), reservations past their time
 * are charged at their estimate, and holds past theirs lapse.
 */
export function advance(state: LedgerState, now: number): LedgerState {
  let next = state;
  if (next.periodEnd !== undefined && now >= next.periodEnd) {
    const period = periodAt(next.limits.period, now);
    next = { ...next, periodStart: period.start, periodEnd: period.end, spent: ZERO, stops: NO_STOPS };
  }
  next = charge(
    next,
    next.reservations.filter((r) => r.expiresAt <= now),
  );
  if (next.holds.some((h) => h.expiresAt <= now))
    next = { ...next, holds: next.holds.filter((h) => h.expiresAt > now) };
  return next;
}

/** When the ledger must next look at the time: its period's end, or a reservation's or a hold's expiry. */
export function nextDeadline(state: LedgerState): number | undefined {
  const times = [
    ...(state.periodEnd === undefined ? [] : [state.periodEnd]),
    ...state.reservations.map((r) => r.expiresAt),
    ...state.holds.map((h) => h.expiresAt),
  ];
  return times.length ? Math.min(...times) : undefined;
}

/**
 * A new budget: the same period kind keeps its spend; another kind starts a new period at `now`,
 * with the new period's end (none for a total).
 */
export function configure(state: LedgerState, limits: TenantBudgetLimits, now: number): LedgerState {
  if (limits.period === state.limits.period) return { ...state, limits };
  const { periodEnd: _end, ...kept } = state;
  return {
    ...kept,
    ...newLedger(state.tenant, limits, now),
    reservations: state.reservations,
    settled: state.settled,
    holds: state.holds,
    queue: state.queue,
  };
}

/** Whether `key` is the call `call` or one of its later attempts (`<call>@<attempt>`). */
const attemptOf = (call: string, key: string): boolean => key === call || key.startsWith(`${call}@`);

/**
 * Charges the attempts of `call` still open, but `except`, at their estimates: they ended without
 * settling (a worker lost after the provider may have answered), so what they may have cost counts.
 */
export function loseAttempts(
  state: LedgerState,
  call: string,
  except?: string,
): { state: LedgerState; lost?: BudgetAmount } {
  const lost = state.reservations.filter((r) => attemptOf(call, r.key) && r.key !== except);
  if (lost.length === 0) return { state };
  return { state: charge(state, lost), lost: lost.reduce(addAmount, ZERO) };
}

/** What a call drew from its holder's hold and did not spend, back in that hold while the holder still holds. */
function giveBack(holds: RunHold[], open: BudgetReservation | undefined, actual: BudgetAmount): RunHold[] {
  if (open?.drawn === undefined || open.holder === undefined) return holds;
  const back = minAmount(open.drawn, minusAmount(open, actual));
  return holds.map((h) => (h.run === open.holder ? { ...h, ...addAmount(h, back) } : h));
}

/**
 * The ledger with `input` settled: its reservation replaced by the actual spend. A key settled
 * before changes nothing, unless its reservation had expired or been lost and was charged at its
 * estimate: then the charge becomes the actual spend. A key the ledger never saw (or no longer
 * remembers) is counted as spent; a key still in line leaves it.
 */
function settleKey(state: LedgerState, input: SettleInput): LedgerState {
  const actual = amountOf(input);
  const done = state.settled.find((s) => s.key === input.key);
  if (done && !done.expired) return state;
  const settled: SettledKey = { key: input.key, ...actual };
  const open = state.reservations.find((r) => r.key === input.key);
  if (done)
    return {
      ...state,
      spent: addAmount(minusAmount(state.spent, done), actual),
      settled: state.settled.map((s) => (s === done ? settled : s)),
    };
  return {
    ...state,
    spent: addAmount(state.spent, actual),
    reservations: state.reservations.filter((r) => r.key !== input.key),
    holds: giveBack(state.holds, open, actual),
    queue: state.queue.filter((q) => q.key !== input.key),
    settled: keepSettled([...state.settled, settled]),
  };
}

/**
 * Settles a call (see `settleKey` for the key itself). A call that failed (`lost`) charges its
 * attempts still open at their estimates; an attempt that answered charges the other attempts of
 * its call still open. `lost` is what the call's other attempts stand charged at now, whoever
 * charged them (a later attempt's reservation, or their expiry), so the run counts it once, here.
 */
export function settleCall(state: LedgerState, input: SettleInput): { state: LedgerState; lost?: BudgetAmount } {
  const call = input.call ?? (input.lost ? input.key : undefined);
  if (call === undefined) return { state: settleKey(state, input) };
  const charged = loseAttempts(state, call, input.lost ? undefined : input.key).state;
  const next = input.lost ? charged : settleKey(charged, input);
  const lost = next.settled
    .filter((s) => s.expired && attemptOf(call, s.key) && (input.lost || s.key !== input.key))
    .reduce(addAmount, ZERO);
  return lost.usd > 0 || lost.tokens > 0 ? { state: next, lost } : { state: next };
}

/** The ledger with `input` settled (see {@link settleCall}). */
export const settle = (state: LedgerState, input: SettleInput): LedgerState => settleCall(state, input).state;

/** The ledger once `input.run` ended: its hold given back, its requests out of line, a budget stop counted. */
export function release(state: LedgerState, input: ReleaseInput, now: number): LedgerState {
  const { run, stopped } = input;
  const next = {
    ...state,
    holds: state.holds.filter((h) => h.run !== run),
    queue: state.queue.filter((q) => q.run !== run),
  };
  if (!stopped) return next;
  const { stops } = next;
  return {
    ...next,
    stops: {
      midTask: stops.midTask + (stopped.midTask ? 1 : 0),
      beforeStart: stops.beforeStart + (stopped.midTask ? 0 : 1),
      recent: [...stops.recent, { run, at: now, reason: stopped.reason, midTask: stopped.midTask }].slice(-STOPS_KEPT),
    },
  };
}
