/**
 * A run's model calls against its tenant's budget (docs/fleet.md, Tenant budgets across runs):
 * before a call the run reserves what it may cost at most, after it settles what it cost. Runs of
 * a tenant without a budget skip both (the worker said so when it pinned the run's tools). A
 * ledger that cannot be reached is a refusal: the budget fails closed.
 */
import { condition, isCancellation, setHandler, uuid4 } from '@temporalio/workflow';
import { errorText } from '../../common/error-text';
import { totalTokens, type Cost, type Usage } from '../../contracts/message-model';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import {
  tenantBudgetSignal,
  type BudgetActivities,
  type BudgetAmount,
  type ReserveOutcome,
} from '../../contracts/tenant-budget';
import { runModelInfo } from '../../policy/model-registry';
import { rateLimitWait } from '../../policy/rate-limit-wait';
import { callEstimate, usd } from '../../policy/tenant-budget';
import { budgetNote } from '../../policy/log-notes';
import type { Proxied } from '../agent/agent-io';
import type { CallClearance, RunFeature } from '../agent/feature';
import { emit, updateCurrentDetails, workflowNow, type RunContext } from '../agent/run-context';
import { writeNotes } from '../agent/notes';

/** A granted reservation, to settle once its call is done. */
interface BudgetHold {
  tenant: string;
  key: string;
}

/** Why a call may not be made: the budget cannot cover it, its ledger did not answer, or the run was stopped. */
interface BudgetRefusal {
  refusal: 'exceeded' | 'unreachable' | 'stopped';
  message: string;
}

type BudgetClearance = ({ ok: true } & { hold?: BudgetHold }) | ({ ok: false } & BudgetRefusal);

/**
 * A ledger that does not answer within these attempts counts as a refusal (fail closed): about a
 * minute when its workflow is not being served at all.
 */
const LEDGER_CALLS = {
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second', backoffCoefficient: 2 },
} as const;

/** The ledger's activities, made as quick steps of the run. */
const ledger = (ctx: RunContext, summary: string): Proxied<BudgetActivities> =>
  ctx.io.activities<BudgetActivities>({ shape: 'quick', summary, ...LEDGER_CALLS });

/**
 * The most a call to `model` on `inputTokens` of context may cost at the model's prices: its output
 * limit (the run's `maxTokens` and thinking budget, else the model's own), or `ownLimit` for a call
 * the run's settings do not apply to (a summary).
 */
function callCost(ctx: RunContext, model: ModelRef, inputTokens: number, ownLimit = false): BudgetAmount {
  const info = runModelInfo(ctx.state.models, model);
  const { maxTokens, thinkingBudget } = ctx.state.config.call;
  const output = ownLimit ? info.maxOutputTokens : (maxTokens ?? info.maxOutputTokens) + (thinkingBudget ?? 0);
  return callEstimate(info.prices, inputTokens, output);
}

async function refuse(ctx: RunContext, tenant: string, refusal: BudgetRefusal): Promise<{ ok: false } & BudgetRefusal> {
  const budget = ctx.state.tenantBudget;
  if (budget) {
    budget.waiting = undefined;
    if (refusal.refusal !== 'stopped') budget.refused = refusal.message;
  }
  if (refusal.refusal !== 'stopped') {
    emit(ctx, { type: 'tenant_budget', tenant, what: 'refused', message: refusal.message });
    await writeNotes(ctx, [{ kind: 'system_event', text: budgetNote(tenant, 'refused', refusal.message) }]);
  }
  return { ok: false, ...refusal };
}

/**
 * Reserves `amount` for a call to `model`. While only other calls' reservations stand in the way,
 * the run waits for them (a growing backoff, within `patienceMs`) and asks again; a stop ends the wait.
 */
async function reserveBudget(
  ctx: RunContext,
  model: ModelRef,
  amount: BudgetAmount,
  patienceMs: number,
): Promise<BudgetClearance> {
  const { state } = ctx;
  const budget = state.tenantBudget;
  const tenant = state.config.fleet?.tenant;
  if (!budget || tenant === undefined) return { ok: true };
  // The same key until it is granted: a retried activity or a replayed run asks for the same reservation.
  const key = `${ctx.workflowId}#${budget.granted + 1}`;
  let since: number | undefined;
  for (let round = 0; ; round++) {
    let answer: ReserveOutcome;
    try {
      answer = await ledger(ctx, `budget: reserve ${usd(amount.usd)} for ${modelLabel(model)}`).reserveBudget({
        tenant,
        key,
        model: modelLabel(model),
        ...amount,
      });
    } catch (err) {
      if (isCancellation(err)) throw err;
      const message = `tenant ${tenant}'s ledger could not be reached: ${errorText(err)}`;
      return refuse(ctx, tenant, { refusal: 'unreachable', message });
    }
    if (answer.outcome === 'granted') {
      budget.granted += 1;
      budget.waiting = undefined;
      budget.refused = undefined;
      return { ok: true, hold: { tenant, key } };
    }
    if (answer.outcome === 'exceeded') return refuse(ctx, tenant, { refusal: 'exceeded', message: answer.message });
    const now = workflowNow();
    since ??= now;
    const delay = rateLimitWait({
      patienceMs,
      limitedSinceMs: since,
      nowMs: now,
      round,
      // The workflow's uuid4 is seeded per run: replay-safe randomness.
      jitter: parseInt(uuid4().slice(0, 8), 16) / 2 ** 32,
    });
    if (delay === undefined)
      return refuse(ctx, tenant, { refusal: 'exceeded', message: `waited too long: ${answer.message}` });
    if (state.stopRequested) return refuse(ctx, tenant, { refusal: 'stopped', message: 'stopped' });
    if (round === 0) {
      emit(ctx, { type: 'tenant_budget', tenant, what: 'waiting', message: answer.message });
      await writeNotes(ctx, [{ kind: 'system_event', text: budgetNote(tenant, 'waiting', answer.message) }]);
    }
    budget.waiting = answer.message;
    const seconds = Math.ceil(delay / 1000);
    updateCurrentDetails(ctx, { doing: `waiting ${seconds} s for tenant ${tenant}'s budget (${answer.message})` });
    await condition(() => state.stopRequested !== undefined, delay, {
      summary: `budget: wait ${seconds} s for tenant ${tenant}`,
    });
    if (state.stopRequested) return refuse(ctx, tenant, { refusal: 'stopped', message: 'stopped' });
  }
}

/**
 * Settles a granted reservation with what the call cost; a call that failed (no `spent`) cost
 * nothing. A ledger that does not take it leaves the reservation to expire, charged at its estimate.
 */
async function settleBudget(
  ctx: RunContext,
  hold: BudgetHold | undefined,
  spent?: { usage: Usage; cost: Cost },
): Promise<void> {
  if (!hold) return;
  const amount = spent ? { usd: spent.cost.total, tokens: totalTokens(spent.usage) } : { usd: 0, tokens: 0 };
  try {
    await ledger(ctx, `budget: settle ${usd(amount.usd)}`).settleBudget({ ...hold, ...amount });
  } catch (err) {
    if (isCancellation(err)) throw err;
    emit(ctx, { type: 'tenant_budget', tenant: hold.tenant, what: 'unsettled', message: errorText(err) });
  }
}

/**
 * The run's model calls against its tenant's budget: reserved before, settled after. A refusal
 * ends the run with stop reason `budget` unless a budget rule moves it to a cheaper model.
 */
export const tenantBudget: RunFeature = {
  name: 'tenant budget',
  register(run) {
    const { state } = run;
    setHandler(tenantBudgetSignal, () => {
      if (state.stopReason === undefined && state.config.fleet?.tenant !== undefined)
        state.tenantBudget ??= { granted: 0 };
    });
  },
  view: ({ state }) =>
    state.tenantBudget && state.config.fleet?.tenant !== undefined
      ? { tenantBudget: { tenant: state.config.fleet.tenant, ...state.tenantBudget } }
      : {},
  // Each call reserves against the budget, which the pin says the tenant has.
  pinsFirst: (spec) => spec.fleet?.tenant !== undefined,
  pinned({ state }, pin) {
    if (pin.tenantBudget) state.tenantBudget ??= { granted: 0 };
  },
  async beforeCall(run, ask): Promise<CallClearance> {
    const amount = callCost(run, ask.model, ask.inputTokens, ask.own);
    const clearance = await reserveBudget(run, ask.model, amount, ask.patienceMs);
    if (clearance.ok) return { ok: true, settle: (spent) => settleBudget(run, clearance.hold, spent) };
    const stopped = clearance.refusal === 'stopped';
    return {
      ok: false,
      stopReason: stopped ? (run.state.stopRequested?.reason ?? 'stopped') : 'budget',
      message: clearance.message,
      ...(clearance.refusal === 'exceeded' ? { cheaper: true } : {}),
    };
  },
};
