/**
 * A run's model calls against its tenant's budget (docs/fleet.md, Tenant budgets across runs):
 * a run's first reservation is its admission (its expected cost, held while it works); before each
 * call the run reserves what the call may cost, the call's later attempts reserve their own, and
 * after it the run settles what it cost. Runs of a tenant without a budget skip all of it (the
 * worker said so when it pinned the run's tools). A ledger that cannot be reached is a refusal:
 * the budget fails closed.
 */
import { condition, isCancellation, setHandler, uuid4 } from '@temporalio/workflow';
import { errorText } from '../../common/error-text';
import { addCost, emptyCost, totalTokens, type Cost, type Usage } from '../../contracts/message-model';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import {
  RESERVE_WINDOW_MS,
  tenantBudgetSignal,
  type BudgetAmount,
  type CallBudget,
  type ReserveOutcome,
} from '../../contracts/tenant-budget';
import { runModelInfo } from '../../policy/model-registry';
import { rateLimitWait } from '../../policy/rate-limit-wait';
import { usd } from '../../common/decimal';
import { admissionAmount, callEstimate, outputEstimate } from '../../policy/tenant-budget';
import type { CallAsk, CallClearance, RunFeature } from '../agent/feature';
import { emit, updateCurrentDetails, workflowNow, type RunContext } from '../agent/run-context';
import {
  budgetEvent,
  budgetRefused,
  endTenantBudget,
  ledger,
  registerBudgetSignals,
  waitInLine,
  withdraw,
} from './tenant-budget-line';

/** A granted reservation, to settle once its call is done; its later attempts reserve from it. */
type BudgetHold = CallBudget;

/** Why a call may not be made: the budget cannot cover it, its ledger did not answer, or the run was stopped. */
interface BudgetRefusal {
  refusal: 'exceeded' | 'unreachable' | 'stopped';
  message: string;
}

type BudgetClearance = ({ ok: true } & { hold?: BudgetHold }) | ({ ok: false } & BudgetRefusal);

/**
 * The most a call to `model` on `inputTokens` of context is reserved at, at the model's prices:
 * its output estimate (`outputEstimate`: the run's `maxTokens` and thinking budget, else a typical
 * answer), or for a call the run's settings do not apply to (`ownLimit`: a summary) the same
 * without them.
 */
function callCost(ctx: RunContext, model: ModelRef, inputTokens: number, ownLimit = false): BudgetAmount {
  const info = runModelInfo(ctx.state.models, model);
  const { maxTokens, thinkingBudget } = ctx.state.config.call;
  const output = outputEstimate({
    ...(ownLimit ? {} : { maxTokens, thinkingBudget }),
    modelLimit: info.maxOutputTokens,
    largestOutput: ctx.state.tenantBudget?.largestOutput,
  });
  return callEstimate(info.prices, inputTokens, output);
}

async function refuse(ctx: RunContext, tenant: string, refusal: BudgetRefusal): Promise<{ ok: false } & BudgetRefusal> {
  const budget = ctx.state.tenantBudget;
  if (budget) {
    budget.waiting = undefined;
    if (refusal.refusal !== 'stopped') budget.refused = refusal.message;
  }
  if (refusal.refusal !== 'stopped') await budgetEvent(ctx, tenant, 'refused', refusal.message);
  return { ok: false, ...refusal };
}

/**
 * Whether the run's next reservation is its admission: a top-level run that has not called a
 * model yet (a sub-agent works within its parent's admission, and draws on its parent's hold).
 */
function admissionDue(ctx: RunContext): boolean {
  const { state } = ctx;
  return !state.config.parent && state.tenantBudget?.granted === 0 && state.runs === 1 && state.cost.total === 0;
}

/**
 * Reserves `amount` for a call to `model`; the run's first reservation asks to admit the run with
 * its expected cost. A request that does not fit waits in the ledger's line until the ledger says
 * it is its turn, or refuses it (within `patienceMs`); a ledger that answers only "busy" (one that
 * predates the line) is asked again after a growing backoff. A stop ends either wait.
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
  const label = modelLabel(model);
  const holder = state.config.parent?.workflowId ?? ctx.workflowId;
  const { limits } = state.config;
  const expectedCostUsd = state.config.fleet?.expectedCostUsd;
  const admit = admissionDue(ctx)
    ? admissionAmount(amount, { maxTurns: limits.maxTurns, maxCostUsd: limits.maxCostUsd, expectedCostUsd })
    : undefined;
  const hold: BudgetHold = { tenant, key, model: label, holder, ...amount };
  let since: number | undefined;
  for (let round = 0; ; round++) {
    let answer: ReserveOutcome;
    try {
      answer = await ledger(ctx, `budget: reserve ${usd(amount.usd)} for ${label}`).reserveBudget({
        tenant,
        key,
        model: label,
        ...amount,
        run: ctx.workflowId,
        holder,
        ...(admit ? { admit } : {}),
        notAfter: workflowNow() + RESERVE_WINDOW_MS,
      });
    } catch (err) {
      if (isCancellation(err)) throw err;
      const message = `tenant ${tenant}'s ledger could not be reached: ${errorText(err)}`;
      return refuse(ctx, tenant, { refusal: 'unreachable', message });
    }
    if (answer.admission) budget.admission = true;
    if (answer.outcome === 'granted') return granted(ctx, hold);
    if (answer.outcome === 'exceeded') return refuse(ctx, tenant, { refusal: 'exceeded', message: answer.message });
    const now = workflowNow();
    since ??= now;
    if (answer.outcome === 'queued') {
      const waited = await waitInLine(ctx, {
        tenant,
        key,
        message: answer.message,
        untilMs: since + patienceMs,
        round,
      });
      if (waited.outcome === 'granted') return granted(ctx, hold);
      if (waited.outcome === 'refused') return refuse(ctx, tenant, { refusal: 'exceeded', message: waited.message });
      if (waited.outcome === 'ask') continue;
      await withdraw(ctx, hold);
      if (waited.outcome === 'stopped') return refuse(ctx, tenant, { refusal: 'stopped', message: 'stopped' });
      return refuse(ctx, tenant, { refusal: 'exceeded', message: `waited too long: ${answer.message}` });
    }
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
    if (round === 0) await budgetEvent(ctx, tenant, 'waiting', answer.message);
    budget.waiting = answer.message;
    const seconds = Math.ceil(delay / 1000);
    updateCurrentDetails(ctx, { doing: `waiting ${seconds} s for tenant ${tenant}'s budget (${answer.message})` });
    await condition(() => state.stopRequested !== undefined, delay, {
      summary: `budget: wait ${seconds} s for tenant ${tenant}`,
    });
    if (state.stopRequested) return refuse(ctx, tenant, { refusal: 'stopped', message: 'stopped' });
  }
}

function granted(ctx: RunContext, hold: BudgetHold): BudgetClearance {
  const budget = ctx.state.tenantBudget;
  if (budget) {
    budget.granted += 1;
    budget.waiting = undefined;
    budget.refused = undefined;
    budget.answer = undefined;
  }
  return { ok: true, hold };
}

/**
 * Settles a granted reservation with what the call cost: on the key of the attempt that answered
 * (`budgetKey` of a later attempt). A call that failed (no `spent`) may have been answered and
 * lost: the ledger charges its attempts still open at their estimates. What the ledger charged for
 * lost attempts counts in the run's cost. A ledger that does not take the settlement leaves the
 * reservation to expire, charged at its estimate.
 */
async function settleBudget(
  ctx: RunContext,
  hold: BudgetHold | undefined,
  spent?: { usage: Usage; cost: Cost; budgetKey?: string },
): Promise<void> {
  if (!hold) return;
  const { tenant, key } = hold;
  const attempt = spent?.budgetKey ?? key;
  const settlement = spent
    ? {
        key: attempt,
        ...(attempt === key ? {} : { call: key }),
        usd: spent.cost.total,
        tokens: totalTokens(spent.usage),
      }
    : { key, call: key, usd: 0, tokens: 0, lost: true as const };
  let answer;
  try {
    const summary = spent ? `budget: settle ${usd(settlement.usd)}` : 'budget: settle a failed call';
    answer = await ledger(ctx, summary).settleBudget({ tenant, ...settlement });
  } catch (err) {
    if (isCancellation(err)) throw err;
    emit(ctx, { type: 'tenant_budget', tenant, what: 'unsettled', message: errorText(err) });
    return;
  }
  const budget = ctx.state.tenantBudget;
  if (budget && spent) budget.largestOutput = Math.max(budget.largestOutput ?? 0, spent.usage.outputTokens);
  const lost = answer ? answer.lost : undefined;
  if (!lost || lost.usd <= 0) return;
  ctx.state.cost = addCost(ctx.state.cost, { ...emptyCost(), total: lost.usd });
  const message = `charged ${usd(lost.usd)} for attempts of ${key} that ended without settling (their estimates)`;
  emit(ctx, { type: 'tenant_budget', tenant, what: 'charged', message });
}

/** Reserves against the budget for a call about to be made; a refusal ends the run or moves it to a cheaper model. */
async function reserveForCall(run: RunContext, ask: CallAsk): Promise<CallClearance> {
  const amount = callCost(run, ask.model, ask.inputTokens, ask.own);
  const clearance = await reserveBudget(run, ask.model, amount, ask.patienceMs);
  if (clearance.ok) {
    const { hold } = clearance;
    return {
      ok: true,
      // A later attempt reserves its own share of the call's.
      ...(hold ? { input: { budget: hold } } : {}),
      settle: (spent) => settleBudget(run, hold, spent),
      again: budgetRefused,
    };
  }
  const stopped = clearance.refusal === 'stopped';
  return {
    ok: false,
    stopReason: stopped ? (run.state.stopRequested?.reason ?? 'stopped') : 'budget',
    message: clearance.message,
    ...(clearance.refusal === 'exceeded' ? { cheaper: true } : {}),
  };
}

/**
 * The run's model calls against its tenant's budget: admitted, reserved before, settled after, and
 * the ledger told when the run ends. A refusal ends the run with stop reason `budget` unless a
 * budget rule moves it to a cheaper model.
 */
export const tenantBudget: RunFeature = {
  name: 'tenant budget',
  register(run) {
    const { state } = run;
    setHandler(tenantBudgetSignal, () => {
      if (state.stopReason === undefined && state.config.fleet?.tenant !== undefined)
        state.tenantBudget ??= { granted: 0 };
    });
    registerBudgetSignals(run);
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
  // A run whose tenant has no budget reserves nothing, and answers at once.
  beforeCall: (run, ask) =>
    run.state.tenantBudget && run.state.config.fleet?.tenant !== undefined ? reserveForCall(run, ask) : { ok: true },
  ending: endTenantBudget,
};
