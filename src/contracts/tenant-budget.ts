/**
 * Tenant budgets across runs (docs/fleet.md, Tenant budgets across runs): one ledger workflow per tenant
 * holds the period's spend and the open reservations. It changes only through validated updates,
 * each idempotent by its key; runs reserve an estimate before each model call and settle the
 * actual usage after it.
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
}

/** A key the ledger is done with, and what it counted for it (idempotency across retries). */
export interface SettledKey extends BudgetAmount {
  key: string;
  /** The reservation expired unsettled and its estimate was charged; a late settle corrects it. */
  expired?: true;
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
}

/**
 * The shape of what the ledger's continue-as-new carries; a ledger carried with another version
 * fails at once, naming both.
 */
export const LEDGER_CARRIED_VERSION = 1;

export interface LedgerInput {
  tenant: string;
  /** The first configuration (the ledger is started by `budget set`). */
  limits?: TenantBudgetLimits;
  carry?: LedgerState;
  carriedVersion?: number;
}

/** A reservation a run asks for: its key is the run's workflow id and its call number. */
export interface ReserveInput extends BudgetAmount {
  key: string;
  /** The model the call would go to (for the ledger's refusal message). */
  model: string;
}

/** A settled call: what it actually cost (zero for a call that failed). */
export interface SettleInput extends BudgetAmount {
  key: string;
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
}

/** What a granted reservation answers: the standing right after it. */
export interface ReserveGrant {
  granted: true;
  view: LedgerView;
}

/** Sets (or changes) the tenant's budget. Refused by the validator for limits that cannot be used. */
export const configureBudgetUpdate = defineUpdate<LedgerView, [TenantBudgetLimits]>('configureBudget');

/**
 * Reserves a call's estimate. Refused by the validator (a `TenantBudgetExceeded` failure) when the
 * spend plus the estimate would pass the budget, or (`TenantBudgetBusy`) when only other open
 * reservations stand in the way, so the caller may wait for them to settle.
 */
export const reserveBudgetUpdate = defineUpdate<ReserveGrant, [ReserveInput]>('reserveBudget');

/** Replaces a reservation by what the call actually cost; a key already settled answers as the first time. */
export const settleBudgetUpdate = defineUpdate<LedgerView, [SettleInput]>('settleBudget');

export const ledgerQuery = defineQuery<LedgerView>('ledger');

/** Tells a running agent run that its tenant now has a budget (sent by `budget set`). */
export const tenantBudgetSignal = defineSignal('tenantBudget');

/** The workflow type of the ledger. */
export const LEDGER_WORKFLOW = 'tenantLedgerWorkflow';

/** The ledger of `tenant`: one workflow id per tenant in a namespace. */
export const ledgerWorkflowId = (tenant: string): string => `tenant-ledger/${tenant}`;

/** What a run keeps about its tenant's budget. Absent: the tenant has none, and no call reserves. */
export interface RunTenantBudget {
  /** Reservations granted so far: the next one's key is `<workflow id>#<granted + 1>`. */
  granted: number;
  /** What the run waits for now, while other runs' reservations stand in the way. */
  waiting?: string;
  /** Why the ledger refused the run's last reservation, when that ended the run. */
  refused?: string;
}

/** What a run's reservation comes back as. */
export type ReserveOutcome =
  | { outcome: 'granted'; view: LedgerView }
  /** The budget cannot cover the estimate (the run moves to a cheaper model or stops). */
  | { outcome: 'exceeded'; message: string }
  /** Other runs' open reservations stand in the way (the run waits and asks again). */
  | { outcome: 'busy'; message: string };

/** The budget activities of a run; implemented by the worker over the ledger's updates. */
export interface BudgetActivities {
  reserveBudget(input: ReserveInput & { tenant: string }): Promise<ReserveOutcome>;
  settleBudget(input: SettleInput & { tenant: string }): Promise<void>;
}
