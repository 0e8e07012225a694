/**
 * Tenant budgets across runs (docs/fleet.md, Tenant budgets across runs): one ledger workflow per tenant
 * holds the period's spend, the open reservations, what admitted runs hold and the runs waiting in
 * line. It changes only through validated updates, each idempotent by its key; a run reserves its
 * expected cost before it starts, each model call attempt reserves its estimate, and each settles
 * what it cost.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/** How long a budget lasts before its spend starts again: a UTC day, a UTC month, or for good. */
export const BUDGET_PERIODS = ['day', 'month', 'total'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** A tenant's budget, as `budget set` gives it. */
export interface TenantBudgetLimits {
  /** USD the tenant's runs may spend in a period. */
  maxCostUsd: number;
  /** Tokens (input, output and cache) they may use in a period. */
  maxTokens?: number;
  period: BudgetPeriod;
}

/** Spend as the ledger counts it: dollars and tokens. */
export interface BudgetAmount {
  usd: number;
  tokens: number;
}

/** An open reservation: a model call that was granted its estimate and has not settled yet. */
export interface BudgetReservation extends BudgetAmount {
  key: string;
  /** Workflow time it was made and the time it expires at (ms since the epoch). */
  at: number;
  expiresAt: number;
  /** Whose hold it drew from, and how much ({@link LedgerState} `holdSavings`): what it saves goes back there. */
  holder?: string;
  drawn?: BudgetAmount;
}

/** A key the ledger is done with, and what it counted for it (idempotency across retries). */
export interface SettledKey extends BudgetAmount {
  key: string;
  /**
   * The reservation expired unsettled, or its attempt was lost, and its estimate was charged; a
   * late settle corrects it.
   */
  expired?: true;
  /** A request the ledger refused while it waited in line: asked again, it is refused again. */
  refused?: string;
}

/**
 * What an admitted run holds: the rest of its expected cost, drawn down by its calls' reservations
 * and given back when the run ends (or, unused for {@link LedgerState} `RESERVATION_TTL_MS`, lapses).
 */
export interface RunHold extends BudgetAmount {
  run: string;
  expiresAt: number;
}

/** A request waiting in the ledger's line: a call of a run at work, or a run's admission. */
export interface QueuedRequest extends BudgetAmount {
  key: string;
  /** The run to tell when the request is granted or refused (its workflow id). */
  run: string;
  model: string;
  /** Whose hold the call draws from: the run's own, or its parent's for a sub-agent. */
  holder: string;
  /** An admission: the run's whole expected cost, held once granted (this call included). */
  admit?: BudgetAmount;
  /** Workflow time it joined the line (ms since the epoch). */
  at: number;
}

/** A run the budget stopped: when, and the ledger's refusal. */
export interface BudgetStop {
  run: string;
  at: number;
  reason: string;
}

/** The runs the budget stopped this period: after they had spent (mid-task) or before. */
export interface LedgerStops {
  midTask: number;
  beforeStart: number;
  /** The latest, newest last (bounded). */
  recent: (BudgetStop & { midTask: boolean })[];
}

/** The ledger's whole state: plain JSON, carried by continue-as-new. */
export interface LedgerState {
  tenant: string;
  limits: TenantBudgetLimits;
  /** The current period: its start and, unless the period is `total`, its end (ms since the epoch, UTC). */
  periodStart: number;
  periodEnd?: number;
  spent: BudgetAmount;
  reservations: BudgetReservation[];
  /** The most recent settled keys, newest last (bounded). */
  settled: SettledKey[];
  holds: RunHold[];
  /**
   * A call that costs less than it drew from its run's hold gives the rest back to the hold, and a
   * spent hold stays (at zero) until its run ends: a run holds its expected cost until it ends, so
   * what one run's calls save never admits another that the first run's later calls then starve.
   * Set by ledgers started on code that has it (docs/design.md, Replay and patch policy).
   */
  holdSavings?: true;
  /** Requests waiting for the budget: calls of runs at work first, then admissions, each in the order they came. */
  queue: QueuedRequest[];
  stops: LedgerStops;
}

/**
 * The shape of what the ledger's continue-as-new carries; a ledger carried with another version
 * fails at once, naming both.
 */
export const LEDGER_CARRIED_VERSION = 2;

export interface LedgerInput {
  tenant: string;
  /** The first configuration (the ledger is started by `budget set`). */
  limits?: TenantBudgetLimits;
  carry?: LedgerState;
  carriedVersion?: number;
}

/**
 * A reservation a run asks for: its key is the run's workflow id and its call number, and
 * `<key>@<attempt>` for a call's later attempts.
 */
export interface ReserveInput extends BudgetAmount {
  key: string;
  /** The model the call would go to (for the ledger's refusal message). */
  model: string;
  /** The asking run (its workflow id): the request may wait in line, and the run is told when it is its turn. */
  run?: string;
  /** Whose hold the call draws from (default: `run`). */
  holder?: string;
  /** The run's admission: its whole expected cost, this call included. */
  admit?: BudgetAmount;
  /** A later attempt of the call of this key: its earlier attempts still open were lost, and are charged. */
  call?: string;
  /** Workflow time after which the asking run no longer waits for the answer: a later request is refused. */
  notAfter?: number;
}

/** A settled call: what it actually cost (zero for a call that failed). */
export interface SettleInput extends BudgetAmount {
  key: string;
  /** The call's first key, when `key` is one of its later attempts (`<call>@<attempt>`). */
  call?: string;
  /** The call failed: its attempts still open may have been answered, and are charged at their estimates. */
  lost?: true;
}

/** A run that ended: its hold is given back; a run the budget stopped says why. */
export interface ReleaseInput {
  run: string;
  stopped?: { reason: string; midTask: boolean };
}

/** The ledger as `budget show` reports it. */
export interface LedgerView {
  tenant: string;
  limits: TenantBudgetLimits;
  /** The current period, ISO times (no end for `total`). */
  period: { start: string; end?: string };
  spent: BudgetAmount;
  reserved: BudgetAmount;
  /** What is left once spend and open reservations are counted; tokens only with a token limit. */
  remaining: { usd: number; tokens?: number };
  openReservations: number;
  /** The oldest open reservations (the first {@link QUEUE_SHOWN}): the calls in progress. */
  calls?: (BudgetAmount & { key: string; since: string })[];
  /** What admitted runs hold for their expected calls, and how many runs hold it. */
  held?: BudgetAmount & { runs: number };
  /** The requests in line (the first {@link QUEUE_SHOWN}), and how many there are. */
  queue?: { waiting: number; first: { run: string; usd: number; admission: boolean; since: string }[] };
  stops?: LedgerStops;
}

/**
 * How long a request stays worth answering (ms): about the attempts a run gives its reservation.
 * The ledger refuses one that reaches it later, so nothing is counted for a run that gave up on it.
 */
export const RESERVE_WINDOW_MS = 60_000;

/** How many open reservations and waiting requests the ledger's view lists. */
export const QUEUE_SHOWN = 10;

/** What a granted reservation answers: the standing right after it, and what its call's lost attempts were charged. */
export interface ReserveGrant {
  granted: true;
  view: LedgerView;
  /** The request was the run's admission: the run holds its expected cost until it ends. */
  admitted?: true;
  lost?: BudgetAmount;
}

/** A request that waits in line: the run is told by {@link budgetAnswerSignal} when it is its turn. */
export interface ReserveQueued {
  granted: false;
  queued: string;
}

/** What a settlement answers: the standing after it, and what the call's lost attempts were charged. */
export type SettleAnswer = LedgerView & { lost?: BudgetAmount };

/** What the ledger tells a run whose request waited in line. */
export type BudgetAnswer =
  { key: string; granted: true; admitted?: true } | { key: string; granted: false; message: string };

/** Sets (or changes) the tenant's budget. Refused by the validator for limits that cannot be used. */
export const configureBudgetUpdate = defineUpdate<LedgerView, [TenantBudgetLimits]>('configureBudget');

/**
 * Reserves a call's estimate. Refused by the validator (a `TenantBudgetExceeded` failure) when the
 * spend plus the estimate would pass the budget, or (`TenantBudgetBusy`) when only other open
 * reservations stand in the way, so the caller may wait for them to settle.
 */
export const reserveBudgetUpdate = defineUpdate<ReserveGrant | ReserveQueued, [ReserveInput]>('reserveBudget');

/** Replaces a reservation by what the call actually cost; a key already settled answers as the first time. */
export const settleBudgetUpdate = defineUpdate<SettleAnswer, [SettleInput]>('settleBudget');

/** Gives back what an ended run holds, and takes its requests out of line. */
export const releaseBudgetUpdate = defineUpdate<LedgerView, [ReleaseInput]>('releaseBudget');

/** The ledger's answer to a run's request that waited in line. */
export const budgetAnswerSignal = defineSignal<[BudgetAnswer]>('budgetAnswer');

export const ledgerQuery = defineQuery<LedgerView>('ledger');

/** Tells a running agent run that its tenant now has a budget (sent by `budget set`). */
export const tenantBudgetSignal = defineSignal('tenantBudget');

/** The workflow type of the ledger. */
export const LEDGER_WORKFLOW = 'tenantLedgerWorkflow';

/** The ledger of `tenant`: one workflow id per tenant in a namespace. */
export const ledgerWorkflowId = (tenant: string): string => `tenant-ledger/${tenant}`;

/** What a run keeps about its tenant's budget. Absent: the tenant has none, and no call reserves. */
export interface RunTenantBudget {
  /** Reservations granted (or withdrawn from the line) so far: the next key is `<workflow id>#<granted + 1>`. */
  granted: number;
  /** What the run waits for now, while other runs' reservations stand in the way. */
  waiting?: string;
  /** Why the ledger refused the run's last reservation, when that ended the run. */
  refused?: string;
  /** The run asked the ledger to admit it: it tells the ledger when it ends. */
  admission?: true;
  /** The ledger's answer to the request the run waits for in line. */
  answer?: BudgetAnswer;
  /** The most output tokens one of its calls wrote: what a call without `maxTokens` is estimated at, at least. */
  largestOutput?: number;
}

/** What a run's reservation comes back as. `admission`: the request was the run's admission. */
export type ReserveOutcome = (
  | { outcome: 'granted'; view: LedgerView; admitted?: true }
  /** The budget cannot cover the estimate (the run moves to a cheaper model or stops). */
  | { outcome: 'exceeded'; message: string }
  /** Other runs' open reservations stand in the way (the run waits and asks again). */
  | { outcome: 'busy'; message: string }
  /** The request waits in the ledger's line; the run is told when it is its turn. */
  | { outcome: 'queued'; message: string }
) & { admission?: true };

/**
 * What a model call takes along to reserve its later attempts itself: the call's first key (the
 * run's reservation), its estimate and whose hold it draws from.
 */
export interface CallBudget extends BudgetAmount {
  tenant: string;
  key: string;
  model: string;
  holder: string;
}

/** The budget activities of a run; implemented by the worker over the ledger's updates. */
export interface BudgetActivities {
  reserveBudget(input: ReserveInput & { tenant: string }): Promise<ReserveOutcome>;
  /** What the call's lost attempts were charged (nothing from a ledger that predates the answer). */
  settleBudget(input: SettleInput & { tenant: string }): Promise<{ lost?: BudgetAmount } | void>;
  releaseBudget(input: ReleaseInput & { tenant: string }): Promise<void>;
}
