/**
 * Compaction planning (docs/design.md, Compaction): when the conversation the model
 * would see passes a share of its window, the older part is summarised. The split never separates
 * a tool call from its result. Without a summary (it failed and backs off), the context is fitted
 * by masking every result the model has answered and then leaving the oldest messages out of view.
 */
import { MODEL_VISIBLE_KINDS, type AgentState, type MessageMeta } from '../contracts/agent-run';
import { type ContextPolicy } from '../contracts/run-spec';
import { fullMaskBefore, viewTokens } from './masking';
import { estimateTextTokens } from './token-estimate';
import type { ModelRef } from '../contracts/model-ref';
import type { ResolvedModelInfo } from '../contracts/model-info';
import { runModelInfo } from './model-registry';

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The share of the model's window one tool result may take in the conversation. */
export const RESULT_WINDOW_SHARE = 0.5;

/**
 * The most characters of one tool result the conversation holds for a model with `window` tokens
 * (at four characters a token, the estimate's rate); a longer result is cut to it.
 */
export const maxResultChars = (window: number): number => Math.floor(window * RESULT_WINDOW_SHARE * 4);

export const defaultContextPolicy = (): ContextPolicy => ({ thresholdRatio: 0.8, keepRecentRatio: 0.3 });

const visible = (m: MessageMeta): boolean => MODEL_VISIBLE_KINDS.includes(m.kind);

/**
 * Estimated tokens of what the model sees: summary, visible messages (results before `maskBefore`
 * as stubs), and fixed overhead (system prompt, tools).
 */
export function contextTokens(
  messages: readonly MessageMeta[],
  summaryTokens: number,
  overheadTokens: number,
  maskBefore?: number,
): number {
  return messages.filter(visible).reduce((sum, m) => sum + viewTokens(m, maskBefore), summaryTokens + overheadTokens);
}

/** Tokens the tool specs are assumed to take, per tool. */
const TOKENS_PER_TOOL_SPEC = 150;

/** What a run's context costs besides its messages: the system prompt and the tool specs. */
export const runOverheadTokens = (state: Pick<AgentState, 'config' | 'tools'>): number =>
  estimateTextTokens(state.config.systemPrompt ?? '') + state.tools.length * TOKENS_PER_TOOL_SPEC;

/** The estimated context of a run's next call, with its masking boundary. */
export const runContextTokens = (
  state: Pick<AgentState, 'config' | 'tools' | 'messages' | 'view' | 'maskBefore'>,
): number => contextTokens(state.messages, state.view.summaryTokens, runOverheadTokens(state), state.maskBefore);

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
  maskBefore?: number,
): CompactionPlan | undefined {
  const tokensBefore = contextTokens(messages, summaryTokens, overheadTokens, maskBefore);
  if (tokensBefore <= windowTokens * policy.thresholdRatio) return undefined;
  const keepBudget = windowTokens * policy.keepRecentRatio;
  const points = safeSplitPoints(messages).filter((p) => p < messages.length);
  if (points.length === 0) return undefined;
  const suffix = (i: number): number => contextTokens(messages.slice(i), 0, 0, maskBefore);
  const splitIndex = points.find((p) => suffix(p) <= keepBudget) ?? points[points.length - 1];
  return { splitIndex, tokensBefore, keptTokens: suffix(splitIndex) };
}

/** How to fit the context without a model call (see {@link planFit}). */
export interface FitPlan {
  /** The masking boundary: every result the model has answered is masked. */
  maskBefore: number;
  /** Messages before this index leave the view (the store keeps them); 0 when masking was enough. */
  dropIndex: number;
  tokensAfter: number;
}

/**
 * Fits the context under `targetTokens` without a summary: first masks every maskable result the
 * model has answered, then leaves out of view the fewest oldest messages that get it there, at a
 * point that never separates a tool call from its result. When no such point gets under the
 * target, it leaves out as much as it safely can; the caller compares `tokensAfter` with the window.
 */
export function planFit(
  messages: readonly MessageMeta[],
  summaryTokens: number,
  overheadTokens: number,
  maskBefore: number,
  targetTokens: number,
): FitPlan {
  const mask = fullMaskBefore(messages, maskBefore);
  const tokens = (i: number): number => contextTokens(messages.slice(i), summaryTokens, overheadTokens, mask);
  if (tokens(0) <= targetTokens) return { maskBefore: mask, dropIndex: 0, tokensAfter: tokens(0) };
  const points = safeSplitPoints(messages).filter((p) => p < messages.length);
  const dropIndex = points.find((p) => tokens(p) <= targetTokens) ?? points[points.length - 1] ?? 0;
  return { maskBefore: mask, dropIndex, tokensAfter: tokens(dropIndex) };
}

/**
 * A model's window: the run's own setting, else what the worker's config said about the model (kept
 * with the run), else the built-in registry's.
 */
export function modelWindow(
  configured: number | undefined,
  models: readonly ResolvedModelInfo[] | undefined,
  model: ModelRef,
): number {
  if (configured) return configured;
  const info = runModelInfo(models, model);
  return info.known ? info.contextWindow : DEFAULT_CONTEXT_WINDOW;
}
