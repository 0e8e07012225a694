/**
 * What a run was billed for its tokens, reported in its result, state and trace: the input the
 * providers counted (uncached, read from their prompt cache, written to it), the output, and the
 * cost of each. Summaries count too.
 */
import type { RunBilling } from '../contracts/run-stats';
import type { Cost, Usage } from '../contracts/message-model';

/**
 * A dollar amount as a run reports it: rounded to a billionth of a dollar, so sums of prices show
 * as `0.005952`, not `0.005952000000000001`.
 */
export const reportedUsd = (usd: number): number => Math.round(usd * 1e9) / 1e9;

const reportedCost = (cost: Cost): Cost => ({
  input: reportedUsd(cost.input),
  output: reportedUsd(cost.output),
  cacheRead: reportedUsd(cost.cacheRead),
  cacheWrite: reportedUsd(cost.cacheWrite),
  total: reportedUsd(cost.total),
});

export function billingOf(usage: Usage, cost: Cost): RunBilling {
  const inputTokens = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    inputTokens,
    uncachedInputTokens: usage.inputTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    outputTokens: usage.outputTokens,
    cacheReadShare: inputTokens > 0 ? Math.round((usage.cacheReadTokens / inputTokens) * 1000) / 1000 : 0,
    cost: reportedCost(cost),
  };
}

/**
 * A call's or a run's tokens as one short text: every input token the provider counted (prompt-cache
 * reads and writes too, with the reads named), then the output: `1200 in (1180 cached) / 79 out`.
 */
export function tokensInOut(usage: Usage): string {
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const cached = usage.cacheReadTokens > 0 ? ` (${usage.cacheReadTokens} cached)` : '';
  return `${input} in${cached} / ${usage.outputTokens} out`;
}
