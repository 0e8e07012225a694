/**
 * Masking old tool results (docs/design.md, Masking): the provider view shows a tool result the
 * model has moved past as a short stub (the tool, its arguments, the result's size, how to read it
 * again), while the store and the transcript keep it whole. The workflow decides a boundary, a
 * log position; the model-call activity masks every maskable result before it. The boundary moves
 * in batches, so the prefix of the conversation sent to the provider stays the same for several
 * turns and its prompt cache keeps hitting; with `byCost` and a prompt cache, it moves when what it
 * saves outweighs writing the cache again.
 */
import type { MessageMeta } from '../contracts/agent-run';
import type { MaskPolicy } from '../contracts/run-spec';

export const DEFAULT_MASK_POLICY: MaskPolicy = { keepResults: 3, batch: 5, byCost: true };

/** What a prompt cache charges per token, as a share of the price of uncached input. */
export interface CachePrices {
  read: number;
  /** What a token written to the cache costs; a provider without a write charge bills it as input (1). */
  write: number;
}

/** Anthropic's ratios (reads 0.1×, writes 1.25×), assumed for a model whose prices are unknown. */
export const DEFAULT_CACHE_PRICES: CachePrices = { read: 0.1, write: 1.25 };

/** The provider's prompt cache, as the boundary's cost weighs it. */
export interface MaskCache {
  prices: CachePrices;
  /** Model calls the run is expected to make from this one on, this one included (at least 1). */
  callsLeft: number;
}

/** The built-in tool that reads a masked result back by its tool-call id. */
export const READ_RESULT_TOOL = 'read_tool_result';

/** A result this small (estimated tokens) costs less whole than as a stub: it is never masked. */
export const MIN_MASKED_TOKENS = 100;

/** Estimated tokens of a stub in place of a masked result. */
export const STUB_TOKENS = 60;

/** Characters of a call's arguments quoted in its stub. */
const STUB_ARGUMENT_CHARS = 200;

/** What decides whether one message is masked: its kind, outcome, size and position. */
type Maskable = Pick<MessageMeta, 'seq' | 'kind' | 'tokens' | 'isError'>;

/**
 * Whether a message is a tool result that may be masked: a successful one, bigger than a stub.
 * Failed results stay whole: the model learns most from what went wrong.
 */
export const maskable = (m: Omit<Maskable, 'seq'>): boolean =>
  m.kind === 'tool_result' && m.isError !== true && m.tokens > MIN_MASKED_TOKENS;

/** Whether the provider view shows `m` as a stub under the boundary `maskBefore`. */
export const isMasked = (m: Maskable, maskBefore: number | undefined): boolean =>
  maskBefore !== undefined && m.seq < maskBefore && maskable(m);

/** Tokens a message takes in the provider view under the boundary. */
export const viewTokens = (m: Maskable, maskBefore: number | undefined): number =>
  isMasked(m, maskBefore) ? STUB_TOKENS : m.tokens;

/** The last assistant message's position: results after it answer calls the model has not yet seen answered. */
function lastAnswerSeq(messages: readonly MessageMeta[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].kind === 'assistant') return messages[i].seq;
  return undefined;
}

/**
 * The boundary for the next call. It moves when `keepResults + batch` maskable results lie at or
 * after it, to just before the newest `keepResults`; it never passes the last answer, so the model
 * always sees the results of its latest calls whole. With `byCost` and a prompt cache, it moves by
 * `costMaskBefore` instead.
 */
export function nextMaskBefore(
  messages: readonly MessageMeta[],
  current: number,
  policy: MaskPolicy,
  cache?: MaskCache,
): number {
  if (policy.byCost && cache) return costMaskBefore(messages, current, cache);
  const open = messages.filter((m) => m.seq >= current && maskable(m));
  if (open.length < policy.keepResults + policy.batch) return current;
  const last = lastAnswerSeq(messages) ?? current;
  const target = policy.keepResults > 0 ? open[open.length - policy.keepResults].seq : open[open.length - 1].seq + 1;
  return Math.max(current, Math.min(target, last));
}

/**
 * The boundary by cost. The previous call sent every message before the last answer, and the
 * provider cached that prefix; moving the boundary changes the prefix at the first newly masked
 * result, so the call writes the cache again from there to the last answer (`rewritten`, at the
 * write price instead of the read price). What it saves is the masked tokens (less their stubs),
 * read from the cache on every remaining call. Both grow together as the boundary goes further,
 * the saving faster, so the boundary moves to the last answer or stays.
 */
export function costMaskBefore(messages: readonly MessageMeta[], current: number, cache: MaskCache): number {
  const last = lastAnswerSeq(messages);
  if (last === undefined) return current;
  const between = messages.filter((m) => m.seq >= current && m.seq < last);
  const firstMasked = between.findIndex(maskable);
  if (firstMasked < 0) return current;
  const changed = between.slice(firstMasked);
  const saved = changed.reduce((n, m) => n + (maskable(m) ? m.tokens - STUB_TOKENS : 0), 0);
  const rewritten = changed.reduce((n, m) => n + viewTokens(m, last), 0);
  const { read, write } = cache.prices;
  return cache.callsLeft * read * saved > Math.max(0, write - read) * rewritten ? last : current;
}

/** The furthest boundary: every maskable result the model has already answered is masked. */
export function fullMaskBefore(messages: readonly MessageMeta[], current: number): number {
  return Math.max(current, lastAnswerSeq(messages) ?? current);
}

/** The text the model sees in place of a masked result. */
export function maskStub(call: { id: string; name: string; arguments?: unknown }, resultChars: number): string {
  const args = JSON.stringify(call.arguments ?? {});
  const shown = args.length > STUB_ARGUMENT_CHARS ? `${args.slice(0, STUB_ARGUMENT_CHARS)}…` : args;
  return (
    `[Result of ${call.name}(${shown}) not shown: ${resultChars} characters, kept in full. ` +
    `To see it again, call ${READ_RESULT_TOOL} with tool_call_id "${call.id}".]`
  );
}
