/** What a run measures of itself: tool and model totals for its trace, and what it was billed. */
import type { Cost } from './message-model';

/** The tokens a run was billed for, and what they cost (`policy/billing.ts`). */
export interface RunBilling {
  /** Every input token the providers counted: uncached, read from their prompt cache, written to it. */
  inputTokens: number;
  uncachedInputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /** Share of `inputTokens` read from the prompt cache (0 to 1). */
  cacheReadShare: number;
  /** Cost in USD by kind of token, and in total. */
  cost: Cost;
}

/** Totals of one tool's calls in a run (see `RunStats`). */
export interface ToolStats {
  calls: number;
  errors: number;
  /** Calls that never ran (skipped by steering or stop, refused, over a limit). */
  skipped: number;
  totalMs: number;
  maxMs: number;
}

export interface RunStats {
  /** Workflow time the run started (ms since the epoch). */
  startedAt: number;
  /** Workflow time of the last recorded event. */
  lastEventAt: number;
  modelCalls: number;
  /** Time from each turn's start to its answer, summed (includes failover and compaction). */
  modelMs: number;
  /** Model calls that failed, each after its attempts. */
  modelFailures: number;
  /** The attempts those calls made (one for a call whose attempts are not known). */
  modelFailedAttempts?: number;
  /** From the start to the first model answer. */
  firstAnswerMs?: number;
  tools: Record<string, ToolStats>;
  /** Start of the turn waiting for its answer. */
  turnStartedAt?: number;
}
