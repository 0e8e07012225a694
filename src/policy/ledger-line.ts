/**
 * Who gets a tenant's budget next (docs/fleet.md, Tenant budgets across runs): a run is admitted
 * when its expected cost fits beside what is spent, reserved and held, and holds that cost while
 * it works; a call of a run at work needs only its own estimate to fit beside the spend and the
 * open calls, so it goes before any run not yet started. A request that does not fit waits in
 * line, calls before admissions, each in the order they came; the head of the line is served
 * first, and one that can never fit is refused.
 */
import type {
  BudgetAmount,
  BudgetAnswer,
  BudgetReservation,
  LedgerState,
  QueuedRequest,
  ReserveInput,
  TenantBudgetLimits,
} from '../contracts/tenant-budget';
import { ZERO, addAmount, heldOf, minAmount, minusAmount, reservedOf } from './budget-amounts';
import { RESERVATION_TTL_MS, keepSettled, loseAttempts } from './tenant-ledger';
import { usd } from '../common/decimal';

/** What the ledger says to a request (on an advanced state, its lost attempts charged). */
export type ReserveDecision =
  /** The key was granted (and maybe settled) before: the same answer again, nothing changes. */
  | { kind: 'again' }
  | { kind: 'grant' }
  /** It cannot fit now: it joins the line (`queue`), is in it already (`queued`), or is refused (`busy`). */
  | { kind: 'queue' | 'queued' | 'busy'; message: string }
  | { kind: 'exceeded'; message: string };

const over = (limits: TenantBudgetLimits, amount: BudgetAmount): boolean =>
  amount.usd > limits.maxCostUsd || (limits.maxTokens !== undefined && amount.tokens > limits.maxTokens);

const periodName = (limits: TenantBudgetLimits): string =>
  limits.period === 'total' ? 'in all' : `this ${limits.period}`;

const ordinal = (n: number): string => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th');
  return `${n}${suffix}`;
};

/** What the request needs: for an admission the run's whole expected cost (never less than its first call). */
const needOf = (input: ReserveInput): BudgetAmount =>
  input.admit
    ? { usd: Math.max(input.admit.usd, input.usd), tokens: Math.max(input.admit.tokens, input.tokens) }
    : input;

/** A request as it waits in line, and back. */
const queued = (input: ReserveInput & { run: string }, now: number): QueuedRequest => ({
  key: input.key,
  run: input.run,
  model: input.model,
  holder: input.holder ?? input.run,
  usd: input.usd,
  tokens: input.tokens,
  ...(input.admit ? { admit: input.admit } : {}),
  at: now,
});
const asInput = ({ at: _at, ...q }: QueuedRequest): ReserveInput => q;

function exceededMessage(state: LedgerState, input: ReserveInput): string {
  const { limits, spent } = state;
  const withTokens = limits.maxTokens !== undefined;
  const need = needOf(input);
  const tokens = withTokens ? ` and ${need.tokens} tokens` : '';
  const what = input.admit
    ? `the run expects to spend up to ${usd(need.usd)}${tokens} (its calls to ${input.model}), so it was not started`
    : `the call to ${input.model} needs up to ${usd(need.usd)}${tokens}`;
  const tokensSpent = withTokens ? ` and ${spent.tokens} of ${limits.maxTokens} tokens` : '';
  return (
    `tenant ${state.tenant}'s budget is spent: ${usd(spent.usd)} of ${usd(limits.maxCostUsd)}${tokensSpent} ` +
    `${periodName(limits)}; ${what}`
  );
}

function busyMessage(state: LedgerState, input: ReserveInput, place?: number): string {
  const { limits, spent } = state;
  const held = heldOf(state);
  const need = needOf(input);
  const what = input.admit
    ? `the run's admission needs ${usd(need.usd)}`
    : `the call to ${input.model} needs ${usd(need.usd)}`;
  const line = place === undefined ? '' : `${ordinal(place)} in line for tenant ${state.tenant}'s budget: `;
  const holders = state.holds.filter((h) => h.usd > 0).length;
  const holding = held.usd > 0 ? ` and ${usd(held.usd)} held by ${holders} runs at work` : '';
  return (
    `${line}tenant ${state.tenant}'s budget has ${usd(limits.maxCostUsd - spent.usd)} left ${periodName(limits)}, ` +
    `${usd(reservedOf(state).usd)} of it reserved by ${state.reservations.length} calls in progress${holding}; ${what}`
  );
}

/** Where a request would stand in line: calls before admissions. */
const placeOf = (state: LedgerState, input: ReserveInput): number =>
  (input.admit ? state.queue.length : state.queue.filter((q) => !q.admit).length) + 1;

/**
 * Whether `input` fits now, as the head of the line (`ahead` false) or behind what waits. A call
 * of a run at work needs its estimate to fit beside the spend and the open calls; an admission,
 * and a request of a run that cannot wait in line, its whole amount beside the holds too.
 */
function fits(state: LedgerState, input: ReserveInput, ahead: boolean): boolean {
  const { limits, spent } = state;
  const calls = addAmount(spent, reservedOf(state));
  if (input.call) return !over(limits, addAmount(calls, input));
  const committed = addAmount(calls, heldOf(state));
  if (input.admit) return !(ahead && state.queue.length > 0) && !over(limits, addAmount(committed, needOf(input)));
  if (input.run === undefined) return !over(limits, addAmount(committed, input));
  return !(ahead && state.queue.some((q) => !q.admit)) && !over(limits, addAmount(calls, input));
}

export function reserveDecision(state: LedgerState, input: ReserveInput): ReserveDecision {
  if (state.reservations.some((r) => r.key === input.key)) return { kind: 'again' };
  const done = state.settled.find((s) => s.key === input.key);
  if (done) return done.refused ? { kind: 'exceeded', message: done.refused } : { kind: 'again' };
  const waiting = state.queue.findIndex((q) => q.key === input.key);
  if (waiting >= 0) return { kind: 'queued', message: busyMessage(state, input, waiting + 1) };
  if (over(state.limits, addAmount(state.spent, needOf(input))))
    return { kind: 'exceeded', message: exceededMessage(state, input) };
  if (fits(state, input, true)) return { kind: 'grant' };
  if (input.run !== undefined && !input.call)
    return { kind: 'queue', message: busyMessage(state, input, placeOf(state, input)) };
  return { kind: 'busy', message: busyMessage(state, input) };
}

/**
 * The ledger with `input` granted: its reservation opened; an admission's run holds the rest of
 * its expected cost, a call draws its estimate from its holder's hold (and keeps the hold alive).
 */
function grant(state: LedgerState, input: ReserveInput, now: number): LedgerState {
  const { key, usd: amount, tokens } = input;
  const expiresAt = now + RESERVATION_TTL_MS;
  const { holdSavings } = state;
  const opened = (holder: string | undefined, drawn: BudgetAmount): BudgetReservation[] => [
    ...state.reservations,
    { key, usd: amount, tokens, at: now, expiresAt, ...(holdSavings && holder !== undefined ? { holder, drawn } : {}) },
  ];
  if (input.admit && input.run !== undefined) {
    const rest = minusAmount(needOf(input), input);
    const holds = state.holds.filter((h) => h.run !== input.run);
    const kept = rest.usd > 0 || holdSavings ? [...holds, { run: input.run, ...rest, expiresAt }] : holds;
    return { ...state, reservations: opened(input.run, { usd: amount, tokens }), holds: kept };
  }
  const hold = state.holds.find((h) => h.run === (input.holder ?? input.run));
  const drawn = hold ? minAmount(hold, input) : ZERO;
  const holds = state.holds.flatMap((h) => {
    if (h !== hold) return [h];
    const left = minusAmount(h, drawn);
    return left.usd > 0 || holdSavings ? [{ ...h, ...left, expiresAt }] : [];
  });
  return { ...state, reservations: opened(hold?.run, drawn), holds };
}

/** What a request does to the ledger, with what the call's lost attempts were charged. */
export interface Requested {
  state: LedgerState;
  decision: ReserveDecision;
  lost?: BudgetAmount;
}

/** Takes `input`: charges its call's lost attempts, then grants it, puts it in line, or leaves the ledger as it was. */
export function request(state: LedgerState, input: ReserveInput, now: number): Requested {
  const { state: charged, lost } = input.call ? loseAttempts(state, input.call, input.key) : { state };
  const decision = reserveDecision(charged, input);
  const lostPart = lost ? { lost } : {};
  if (decision.kind === 'grant') return { state: grant(charged, input, now), decision, ...lostPart };
  if (decision.kind === 'queue' && input.run !== undefined) {
    const entry = queued({ ...input, run: input.run }, now);
    const calls = charged.queue.filter((q) => !q.admit);
    const admissions = charged.queue.filter((q) => q.admit);
    const queue = entry.admit ? [...calls, ...admissions, entry] : [...calls, entry, ...admissions];
    return { state: { ...charged, queue }, decision, ...lostPart };
  }
  return { state: charged, decision, ...lostPart };
}

/** A run to tell, and what. */
export interface Told {
  run: string;
  answer: BudgetAnswer;
}

/**
 * Serves the line from its head: grants each request that fits now, refuses each that can never
 * fit, and stops at the first that must wait (nobody behind it goes first).
 */
export function promote(state: LedgerState, now: number): { state: LedgerState; told: Told[] } {
  let next = state;
  const told: Told[] = [];
  for (;;) {
    const [head, ...rest] = next.queue;
    if (!head) break;
    const input = asInput(head);
    const without = { ...next, queue: rest };
    if (over(next.limits, addAmount(next.spent, needOf(input)))) {
      const message = exceededMessage(next, input);
      next = { ...without, settled: keepSettled([...next.settled, { key: head.key, ...ZERO, refused: message }]) };
      told.push({ run: head.run, answer: { key: head.key, granted: false, message } });
    } else if (fits(without, input, false)) {
      next = grant(without, input, now);
      told.push({ run: head.run, answer: { key: head.key, granted: true, ...(head.admit ? { admitted: true } : {}) } });
    } else break;
  }
  return { state: next, told };
}
