/**
 * The checks every store applies to what it is handed, before it touches its storage: each bad
 * value is one {@link StoreError} `bad_input` line, and nothing is written.
 */
import { canonicalJson } from '../common/canonical-json';
import type { AgentMessageKind } from '../contracts/agent-run';
import type { TokenRecord } from '../contracts/token-stream';
import { StoreError, type LogEntry, type SummaryRecord, type WriteOrder } from './content-store';
import { isTokenRecord } from './token-streams';

const HASH = /^[0-9a-f]{64}$/;
const KINDS: ReadonlySet<string> = new Set<AgentMessageKind>([
  'user',
  'assistant',
  'tool_result',
  'summary',
  'context_note',
  'system_event',
  'tool_log',
]);
/** Longest conversation id accepted (Temporal's workflow ids are limited to 1,000 bytes by default). */
const MAX_ID_CHARS = 1_000;
const MAX_SEQ = 2 ** 31 - 1;

export function checkHash(hash: unknown): string {
  if (typeof hash !== 'string' || !HASH.test(hash))
    throw new StoreError('bad_input', `${JSON.stringify(hash)} is not a content hash (64 lowercase hex digits)`);
  return hash;
}

export function checkConversationId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_CHARS || id.includes('\0'))
    throw new StoreError(
      'bad_input',
      `a conversation id must be a non-empty string of at most ${MAX_ID_CHARS} characters`,
    );
  return id;
}

const isSeq = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= MAX_SEQ;

export function checkRange(fromSeq: unknown, toSeq: unknown): void {
  if (!isSeq(fromSeq) || !isSeq(toSeq))
    throw new StoreError('bad_input', `log positions must be integers from 0 to ${MAX_SEQ}, got ${fromSeq}..${toSeq}`);
}

export function checkEntries(entries: readonly LogEntry[]): void {
  for (const e of entries) {
    if (!e || !isSeq(e.seq) || !KINDS.has(e.kind) || typeof e.hash !== 'string' || !HASH.test(e.hash))
      throw new StoreError('bad_input', `bad log entry ${JSON.stringify(e)}`);
  }
  const seqs = new Set(entries.map((e) => e.seq));
  if (seqs.size !== entries.length) throw new StoreError('bad_input', 'a write names one log position twice');
}

/** The order of a write; "now" (this host's clock, attempt 0) when the writer gives none. */
export function orderOf(order: WriteOrder | undefined): WriteOrder {
  if (order === undefined) return { scheduledAt: Date.now(), attempt: 0 };
  if (!Number.isSafeInteger(order.scheduledAt) || !Number.isSafeInteger(order.attempt) || order.attempt < 0)
    throw new StoreError('bad_input', `bad write order ${JSON.stringify(order)}`);
  return order;
}

export function checkSummary(summary: SummaryRecord): void {
  checkHash(summary?.hash);
  checkRange(summary.fromSeq, summary.toSeq);
  if (summary.toSeq < summary.fromSeq) throw new StoreError('bad_input', 'a summary must end at or after its start');
}

export function checkTokenRecords(records: readonly TokenRecord[]): void {
  for (const r of records)
    if (!isTokenRecord(r)) throw new StoreError('bad_input', `bad token record ${JSON.stringify(r)}`);
}

export function checkCursor(cursor: unknown): void {
  if (!Number.isSafeInteger(cursor) || (cursor as number) < 0)
    throw new StoreError('bad_input', `a token stream cursor must be an integer of 0 or more, got ${String(cursor)}`);
}

/** A body as stored: stable JSON text (object keys sorted). */
export function bodyText(body: unknown): string {
  if (body === undefined || typeof body === 'function' || typeof body === 'symbol' || typeof body === 'bigint')
    throw new StoreError('bad_input', `a body must be JSON data, got ${typeof body}`);
  try {
    return canonicalJson(body);
  } catch (err) {
    throw new StoreError('bad_input', `a body must be JSON data: ${(err as Error).message}`);
  }
}
