/**
 * Every attempt of a model call is its own reservation (docs/fleet.md, Tenant budgets across runs).
 * The run reserved the first attempt before it scheduled the call; a later attempt reserves
 * `<key>@<attempt>` itself before it calls the provider, and the ledger then charges the call's
 * earlier attempts still open at their estimates: an attempt whose worker was lost after the
 * provider answered never settled, and the provider billed it. An attempt the provider refused
 * (an error status, which is not billed) settles at nothing before it fails.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/activity';
import { BUDGET_FAILURE, LLM_FAILURE } from '../../contracts/failure-types';
import { RESERVE_WINDOW_MS, type CallBudget } from '../../contracts/tenant-budget';
import { activityContext } from '../heartbeat';
import { reserveWith, settleWith } from './tenant-budget';

/** Failures that are a provider's refusal of the request: it answered with an error, and bills nothing. */
const NOT_BILLED: ReadonlySet<string> = new Set([
  LLM_FAILURE.rateLimited,
  LLM_FAILURE.overloaded,
  LLM_FAILURE.serverError,
  LLM_FAILURE.conflict,
  LLM_FAILURE.quotaExceeded,
  LLM_FAILURE.authentication,
  LLM_FAILURE.badRequest,
  LLM_FAILURE.contextTooLong,
  LLM_FAILURE.config,
]);

/** How long an attempt waits for other calls to settle when only they stand in its way. */
const ATTEMPT_WAIT_MS = 60_000;

/** Reserves attempt `key` of the call `budget` names; throws a non-retryable budget failure when it cannot. */
async function reserveAttempt(budget: CallBudget, key: string): Promise<void> {
  const { tenant, key: call, holder, model, usd, tokens } = budget;
  const started = Date.now();
  for (let round = 0; ; round++) {
    const answer = await reserveWith(tenant, {
      key,
      call,
      holder,
      model,
      usd,
      tokens,
      notAfter: Date.now() + RESERVE_WINDOW_MS,
    });
    if (answer.outcome === 'granted') return;
    if (answer.outcome === 'exceeded' || Date.now() - started >= ATTEMPT_WAIT_MS)
      throw ApplicationFailure.create({
        type: answer.outcome === 'exceeded' ? BUDGET_FAILURE.exceeded : BUDGET_FAILURE.busy,
        message: `attempt ${key}: ${answer.message}`,
        nonRetryable: true,
      });
    await sleep(Math.min(5_000, 1_000 * 2 ** round));
  }
}

/**
 * A model-call activity whose later attempts reserve their own share of the run's tenant budget
 * (`budget` in its input); the output names the attempt's key when it is not the call's first.
 */
export function withAttemptBudget<I extends { budget?: CallBudget }, O extends object>(
  activity: (input: Omit<I, 'budget'>) => Promise<O>,
): (input: I) => Promise<O & { budgetKey?: string }> {
  return async (input) => {
    const { budget, ...call } = input;
    if (!budget) return activity(call);
    const attempt = activityContext()?.info.attempt ?? 1;
    const key = attempt > 1 ? `${budget.key}@${attempt}` : budget.key;
    if (attempt > 1) await reserveAttempt(budget, key);
    try {
      const output = await activity(call);
      return attempt > 1 ? { ...output, budgetKey: key } : output;
    } catch (err) {
      if (err instanceof ApplicationFailure && NOT_BILLED.has(err.type ?? ''))
        await settleWith(budget.tenant, { key, usd: 0, tokens: 0 }).catch(() => undefined);
      throw err;
    }
  };
}
