/**
 * Compaction planning (docs/design.md, Compaction): when the conversation the model
 * would see passes a share of its window, the older part is summarised. The split never separates
 * a tool call from its result.
 */
import type { ContextPolicy, MessageMeta } from '../contracts/agent-run';
import { MODEL_VISIBLE_KINDS } from '../contracts/agent-run';
import { kindOf } from './legacy-values';

export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_THRESHOLD_RATIO = 0.8;
export const DEFAULT_KEEP_RECENT_RATIO = 0.3;

export const defaultContextPolicy = (): ContextPolicy => ({
  thresholdRatio: DEFAULT_THRESHOLD_RATIO,
  keepRecentRatio: DEFAULT_KEEP_RECENT_RATIO,
});

const visible = (m: MessageMeta): boolean => MODEL_VISIBLE_KINDS.includes(kindOf(m));

/** Estimated tokens of what the model sees: summary, visible messages, and fixed overhead (system prompt, tools). */
export function contextTokens(messages: readonly MessageMeta[], summaryTokens: number, overheadTokens: number): number {
  return messages.filter(visible).reduce((sum, m) => sum + m.tokens, summaryTokens + overheadTokens);
}

/**
 * Indexes `i` where `messages.slice(0, i)` can be summarised without orphaning a tool call:
 * every call made before `i` is answered before `i`.
 */
export function safeSplitPoints(messages: readonly MessageMeta[]): number[] {
  const open = new Set<string>();
  const points: number[] = [];
  messages.forEach((m, i) => {
    if (i > 0 && open.size === 0) points.push(i);
    for (const id of m.toolCallIds ?? []) open.add(id);
    if (m.toolCallId !== undefined) open.delete(m.toolCallId);
  });
  if (messages.length > 0 && open.size === 0) points.push(messages.length);
  return points;
}

export interface CompactionPlan {
  /** Messages before this index are summarised; the rest stay verbatim. */
  splitIndex: number;
  tokensBefore: number;
  /** Tokens of the part kept verbatim (the summary comes on top). */
  keptTokens: number;
}

/**
 * Decides whether to compact and where to split. Keeps as many recent tokens as the policy
 * allows; never keeps the whole log when compacting, never summarises the message the model
 * must answer next if a safe split before it exists.
 */
export function planCompaction(
  messages: readonly MessageMeta[],
  summaryTokens: number,
  overheadTokens: number,
  policy: ContextPolicy,
  windowTokens: number,
): CompactionPlan | undefined {
  const tokensBefore = contextTokens(messages, summaryTokens, overheadTokens);
  if (tokensBefore <= windowTokens * policy.thresholdRatio) return undefined;
  const keepBudget = windowTokens * policy.keepRecentRatio;
  const points = safeSplitPoints(messages).filter((p) => p < messages.length);
  if (points.length === 0) return undefined;
  const suffix = (i: number): number => contextTokens(messages.slice(i), 0, 0);
  const fitting = points.find((p) => suffix(p) <= keepBudget);
  const splitIndex = fitting ?? points[points.length - 1];
  return { splitIndex, tokensBefore, keptTokens: suffix(splitIndex) };
}
