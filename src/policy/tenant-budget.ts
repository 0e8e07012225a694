/**
 * Tenant budgets (docs/fleet.md, Tenant budgets across runs): what makes a budget, a reservation
 * and a settlement usable, the UTC period a time falls in, and what a model call may cost at most.
 */
import {
  BUDGET_PERIODS,
  type BudgetAmount,
  type BudgetPeriod,
  type TenantBudgetLimits,
} from '../contracts/tenant-budget';
import type { ModelPrices } from '../contracts/model-info';
import { isPlainObject } from '../common/type-helpers';

/** The longest reservation key the ledger takes (a workflow id and a call number). */
const MAX_KEY_LENGTH = 512;

const isPeriod = (value: unknown): value is BudgetPeriod =>
  typeof value === 'string' && (BUDGET_PERIODS as readonly string[]).includes(value);

/** Problems with a budget, one readable line each (none: it can be set). */
export function budgetLimitsProblems(limits: unknown): string[] {
  if (!isPlainObject(limits)) return ['a budget needs maxCostUsd and period'];
  const { maxCostUsd, maxTokens, period, ...rest } = limits;
  const problems: string[] = [];
  if (!(typeof maxCostUsd === 'number' && Number.isFinite(maxCostUsd) && maxCostUsd > 0))
    problems.push(`the budget's cost must be a number of USD above 0, got ${String(maxCostUsd)}`);
  if (maxTokens !== undefined && !(typeof maxTokens === 'number' && Number.isInteger(maxTokens) && maxTokens > 0))
    problems.push(`the budget's tokens must be a whole number above 0, got ${String(maxTokens)}`);
  if (!isPeriod(period))
    problems.push(`the budget's period must be one of ${BUDGET_PERIODS.join(', ')}, got ${String(period)}`);
  for (const field of Object.keys(rest)) problems.push(`a budget has no field "${field}"`);
  return problems;
}

const isKey = (value: unknown): boolean =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_KEY_LENGTH;

/** Problems with a reservation or a settlement: a key, and an amount of USD and tokens that are not negative. */
export function amountProblems(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return ['expected { key, usd, tokens }'];
  const { key, usd, tokens } = input as Record<string, unknown>;
  const problems: string[] = [];
  if (!isKey(key)) problems.push(`the key must be a string of 1 to ${MAX_KEY_LENGTH} characters`);
  if (!(typeof usd === 'number' && Number.isFinite(usd) && usd >= 0))
    problems.push(`usd must be a number of 0 or more, got ${String(usd)}`);
  if (!(typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0))
    problems.push(`tokens must be a whole number of 0 or more, got ${String(tokens)}`);
  return problems;
}

/** Problems with a reservation request: its amount, and the run, holder, call and admission it may name. */
export function reserveProblems(input: unknown): string[] {
  const problems = amountProblems(input);
  if (problems.length > 0) return problems;
  const { run, holder, call, admit, notAfter } = input as Record<string, unknown>;
  for (const [name, value] of Object.entries({ run, holder, call }))
    if (value !== undefined && !isKey(value))
      problems.push(`${name} must be a string of 1 to ${MAX_KEY_LENGTH} characters`);
  if (admit !== undefined)
    problems.push(...amountProblems({ key: 'admit', ...(admit as object) }).map((p) => `admit: ${p}`));
  if (notAfter !== undefined && !(typeof notAfter === 'number' && Number.isFinite(notAfter)))
    problems.push(`notAfter must be a time in ms, got ${String(notAfter)}`);
  return problems;
}

/** Problems with a release: the run that ended, and why the budget stopped it. */
export function releaseProblems(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return ['expected { run, stopped? }'];
  const { run, stopped } = input as Record<string, unknown>;
  const problems = isKey(run) ? [] : [`run must be a string of 1 to ${MAX_KEY_LENGTH} characters`];
  if (stopped !== undefined) {
    const { reason, midTask } = (stopped ?? {}) as Record<string, unknown>;
    if (typeof reason !== 'string' || typeof midTask !== 'boolean') problems.push('stopped needs a reason and midTask');
  }
  return problems;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The period `now` falls in: a UTC day or month, or (`total`) from `now` on without an end. */
export function periodAt(period: BudgetPeriod, now: number): { start: number; end?: number } {
  const date = new Date(now);
  if (period === 'day') {
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    return { start, end: start + DAY_MS };
  }
  if (period === 'month')
    return {
      start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
      end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
    };
  return { start: now };
}

/**
 * The most a model call may cost: its input at the dearer of the input and cache-write prices
 * (a call may write its whole prompt to the cache), and `outputTokens` at the output price.
 */
export function callEstimate(prices: ModelPrices, inputTokens: number, outputTokens: number): BudgetAmount {
  return {
    usd: (inputTokens * Math.max(prices.input, prices.cacheWrite) + outputTokens * prices.output) / 1_000_000,
    tokens: inputTokens + outputTokens,
  };
}

/**
 * Output tokens a call without `maxTokens` is estimated at, at least: a typical answer, not the
 * model's whole output limit (which would price every call of a small budget out of reach). Such a
 * call can cost more than it reserved; `maxTokens` makes the reservation a bound.
 */
export const ESTIMATED_OUTPUT_TOKENS = 1_024;

/** Calls a run's admission counts when it names no expected cost (fewer when its turn limit is lower). */
export const ADMISSION_CALLS = 3;

/**
 * The output tokens a call reserves for: the run's `maxTokens` (a bound), else the larger of
 * {@link ESTIMATED_OUTPUT_TOKENS} and the most any call of the run wrote, within the model's limit;
 * the thinking budget on top.
 */
export function outputEstimate(call: {
  maxTokens?: number;
  thinkingBudget?: number;
  modelLimit: number;
  largestOutput?: number;
}): number {
  const answer =
    call.maxTokens ?? Math.min(call.modelLimit, Math.max(ESTIMATED_OUTPUT_TOKENS, call.largestOutput ?? 0));
  return answer + (call.thinkingBudget ?? 0);
}

/**
 * What a run reserves before it starts (its admission): its expected cost when it names one, else
 * {@link ADMISSION_CALLS} calls at the first call's estimate (fewer when its turn limit is lower),
 * at most its own cost limit; never less than the first call.
 */
export function admissionAmount(
  first: BudgetAmount,
  run: { maxTurns: number; maxCostUsd?: number; expectedCostUsd?: number },
): BudgetAmount {
  const calls = Math.max(1, Math.min(run.maxTurns, ADMISSION_CALLS));
  const usd = run.expectedCostUsd ?? Math.min(calls * first.usd, run.maxCostUsd ?? Number.POSITIVE_INFINITY);
  return { usd: Math.max(usd, first.usd), tokens: calls * first.tokens };
}

/** A budget in a line: `$50 a month`, `$5 and 2,000,000 tokens a day`, `$100 in all`. */
export function budgetLine(limits: TenantBudgetLimits): string {
  const tokens = limits.maxTokens === undefined ? '' : ` and ${limits.maxTokens} tokens`;
  const per = { day: ' a day (UTC)', month: ' a month (UTC)', total: ' in all' }[limits.period];
  return `$${limits.maxCostUsd}${tokens}${per}`;
}
