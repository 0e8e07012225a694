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

/** The longest reservation key the ledger takes (a workflow id and a call number). */
const MAX_KEY_LENGTH = 512;

const isPeriod = (value: unknown): value is BudgetPeriod =>
  typeof value === 'string' && (BUDGET_PERIODS as readonly string[]).includes(value);

/** Problems with a budget, one readable line each (none: it can be set). */
export function budgetLimitsProblems(limits: unknown): string[] {
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits))
    return ['a budget needs maxCostUsd and period'];
  const { maxCostUsd, maxTokens, period, ...rest } = limits as Record<string, unknown>;
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

/** Problems with a reservation or a settlement: a key, and an amount of USD and tokens that are not negative. */
export function amountProblems(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return ['expected { key, usd, tokens }'];
  const { key, usd, tokens } = input as Record<string, unknown>;
  const problems: string[] = [];
  if (!(typeof key === 'string' && key.length > 0 && key.length <= MAX_KEY_LENGTH))
    problems.push(`the key must be a string of 1 to ${MAX_KEY_LENGTH} characters`);
  if (!(typeof usd === 'number' && Number.isFinite(usd) && usd >= 0))
    problems.push(`usd must be a number of 0 or more, got ${String(usd)}`);
  if (!(typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0))
    problems.push(`tokens must be a whole number of 0 or more, got ${String(tokens)}`);
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
  const input = Math.max(prices.input, prices.cacheWrite);
  return {
    usd: (inputTokens * input + outputTokens * prices.output) / 1_000_000,
    tokens: inputTokens + outputTokens,
  };
}

/** A budget in a line: `$50 a month`, `$5 and 2,000,000 tokens a day`, `$100 in all`. */
export function budgetLine(limits: TenantBudgetLimits): string {
  const tokens = limits.maxTokens === undefined ? '' : ` and ${limits.maxTokens} tokens`;
  const per = { day: ' a day (UTC)', month: ' a month (UTC)', total: ' in all' }[limits.period];
  return `$${limits.maxCostUsd}${tokens}${per}`;
}

/** USD as a budget line shows it: four decimals under a dollar, two above. */
export const usd = (amount: number): string => `$${amount.toFixed(Math.abs(amount) < 1 ? 4 : 2)}`;
