/**
 * A run in its tenant ledger's line (docs/fleet.md, Tenant budgets across runs): it waits for the
 * ledger's answer (a signal) and asks again now and then in case one went astray; it takes its
 * request out of line when it stops waiting, and tells the ledger when it ends, giving back what
 * it held and, when the budget stopped it, why.
 */
import { ApplicationFailure, condition, isCancellation, setHandler } from '@temporalio/workflow';
import { BUDGET_FAILURE } from '../../contracts/failure-types';
import { errorText } from '../../common/error-text';
import { budgetAnswerSignal, type BudgetActivities, type CallBudget } from '../../contracts/tenant-budget';
import { budgetNote } from '../../policy/log-notes';
import type { Proxied } from '../agent/agent-io';
import { causeOf, emit, updateCurrentDetails, workflowNow, type RunContext } from '../agent/run-context';
import { writeNotes } from '../agent/notes';

/**
 * A ledger that does not answer within these attempts counts as a refusal (fail closed): about a
 * minute when its workflow is not being served at all.
 */
const LEDGER_CALLS = {
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second', backoffCoefficient: 2 },
} as const;

/** The ledger's activities, made as quick steps of the run. */
export const ledger = (ctx: RunContext, summary: string): Proxied<BudgetActivities> =>
  ctx.io.activities<BudgetActivities>({ shape: 'quick', summary, ...LEDGER_CALLS });

/** How long a run in line waits for the ledger's word before it asks where it stands. */
export const LINE_RECHECK_MS = 60_000;

/** How a wait in line ended: the ledger's answer, a stop, the run's patience, or time to ask again. */
export type LineWait =
  { outcome: 'granted' } | { outcome: 'refused'; message: string } | { outcome: 'stopped' | 'impatient' | 'ask' };

/** Records what the budget did to a call in the run's events, and returns the write of its note to the log. */
export function budgetEvent(
  ctx: RunContext,
  tenant: string,
  what: 'refused' | 'waiting',
  message: string,
): Promise<void> {
  emit(ctx, { type: 'tenant_budget', tenant, what, message });
  return writeNotes(ctx, [{ kind: 'system_event', text: budgetNote(tenant, what, message) }]);
}

/** Takes the ledger's answers to the run's requests in line (a late or repeated one is kept until asked for). */
export function registerBudgetSignals(ctx: RunContext): void {
  setHandler(budgetAnswerSignal, (answer) => {
    const budget = ctx.state.tenantBudget;
    if (budget && answer && typeof answer.key === 'string') budget.answer = answer;
  });
}

/**
 * Waits in line for `key` until the ledger answers, the run is stopped, `untilMs` passes or it is
 * time to ask again; the first round says so in the run's events and log.
 */
export async function waitInLine(
  ctx: RunContext,
  line: { tenant: string; key: string; message: string; untilMs: number; round: number },
): Promise<LineWait> {
  const { state } = ctx;
  const budget = state.tenantBudget;
  const { tenant, key, message } = line;
  if (!budget) return { outcome: 'granted' };
  if (line.round === 0) await budgetEvent(ctx, tenant, 'waiting', message);
  budget.waiting = message;
  updateCurrentDetails(ctx, { doing: `waiting for tenant ${tenant}'s budget (${message})` });
  const answered = () => budget.answer?.key === key;
  const left = line.untilMs - workflowNow();
  if (left > 0 && !answered() && !state.stopRequested)
    await condition(() => answered() || state.stopRequested !== undefined, Math.min(LINE_RECHECK_MS, left), {
      summary: `budget: wait in line for tenant ${tenant}`,
    });
  const answer = answered() ? budget.answer : undefined;
  if (answer) {
    budget.answer = undefined;
    return answer.granted ? { outcome: 'granted' } : { outcome: 'refused', message: answer.message };
  }
  if (state.stopRequested) return { outcome: 'stopped' };
  return workflowNow() >= line.untilMs ? { outcome: 'impatient' } : { outcome: 'ask' };
}

/**
 * Takes `hold`'s request out of line (or gives back its grant, if the answer crossed the run's
 * leaving). Its key is done with: the run's next request takes the next one.
 */
export async function withdraw(ctx: RunContext, hold: CallBudget): Promise<void> {
  const budget = ctx.state.tenantBudget;
  if (budget) budget.granted += 1;
  try {
    await ledger(ctx, 'budget: leave the line').settleBudget({ tenant: hold.tenant, key: hold.key, usd: 0, tokens: 0 });
  } catch (err) {
    if (isCancellation(err)) throw err;
    emit(ctx, { type: 'tenant_budget', tenant: hold.tenant, what: 'unsettled', message: errorText(err) });
  }
}

/**
 * Tells the ledger that the run ended, when the run asked it for admission: what the run held is
 * given back, and a run the budget stopped says why (after it had spent, or before).
 */
export function endTenantBudget(ctx: RunContext): Promise<void> | undefined {
  const { state } = ctx;
  const budget = state.tenantBudget;
  const tenant = state.config.fleet?.tenant;
  if (!budget?.admission || tenant === undefined) return undefined;
  return release(ctx, tenant, state.stopReason === 'budget' ? budget.refused : undefined);
}

/** Gives back what the run held; `refused`: why the budget stopped it. */
async function release(ctx: RunContext, tenant: string, refused: string | undefined): Promise<void> {
  const { state } = ctx;
  try {
    await ledger(ctx, 'budget: release').releaseBudget({
      tenant,
      run: ctx.workflowId,
      ...(refused ? { stopped: { reason: refused, midTask: state.cost.total > 0 } } : {}),
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    emit(ctx, { type: 'tenant_budget', tenant, what: 'unsettled', message: errorText(err) });
  }
}

/** Whether a model call failed because the tenant budget could not cover a later attempt (reserved again). */
export function budgetRefused(err: unknown): boolean {
  const cause = causeOf(err);
  return (
    cause instanceof ApplicationFailure &&
    (cause.type === BUDGET_FAILURE.exceeded || cause.type === BUDGET_FAILURE.busy)
  );
}
