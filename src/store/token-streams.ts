/**
 * The token streams a content store keeps beside its conversations (contracts/token-stream.ts):
 * what each backend implements behind the store's checks, and the one reading of a stored record.
 */
import { isPlainObject } from '../common/type-helpers';
import type { TokenRead, TokenRecord } from '../contracts/token-stream';
import type { StoredConversation } from './content-store';

/** One backend's token streams; the store checks every input before it reaches them. */
export interface TokenStreamStore {
  append(runId: string, records: readonly TokenRecord[]): Promise<void>;
  read(runId: string, cursor: number): Promise<TokenRead>;
  subscribe(runId: string, onChange: () => void): () => void;
  /** Every run with a stream, with the time of its last write. */
  list(): Promise<StoredConversation[]>;
  /** Deletes the streams of these runs; resolves with how many there were. */
  delete(runIds: readonly string[]): Promise<number>;
  close(): Promise<void>;
}

const KINDS: ReadonlySet<unknown> = new Set(['text', 'thinking', 'tool_call']);
const OUTCOMES: ReadonlySet<unknown> = new Set(['answered', 'failed']);

const count = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/** Whether a `tool` record's event is a quick tool call's start or execution. */
function isToolEvent(value: unknown): boolean {
  if (!isPlainObject(value) || typeof value.toolCallId !== 'string' || typeof value.tool !== 'string') return false;
  if (value.type === 'tool_start') return typeof value.args === 'string';
  return value.type === 'tool_execution' && typeof value.durationMs === 'number' && typeof value.isError === 'boolean';
}

/** Whether an `events` record's entries are events at offsets, one after another. */
function isEntries(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  return value.every(
    (e: unknown, i) =>
      isPlainObject(e) &&
      count(e.offset) &&
      (i === 0 || e.offset === (value[i - 1] as { offset: number }).offset + 1) &&
      isPlainObject(e.event) &&
      typeof e.event.type === 'string' &&
      typeof e.event.at === 'number' &&
      typeof e.event.turn === 'number',
  );
}

/** Whether `value` is a token record (a stored line that is not one is skipped by readers). */
export function isTokenRecord(r: unknown): r is TokenRecord {
  if (!isPlainObject(r)) return false;
  if (r.type === 'events') return count(r.after) && typeof r.at === 'number' && isEntries(r.entries);
  if (!count(r.seq) || !count(r.scheduledAt) || !count(r.attempt) || typeof r.model !== 'string') return false;
  if (typeof r.at !== 'number') return false;
  switch (r.type) {
    case 'start':
      return r.after === undefined || count(r.after);
    case 'piece':
      return KINDS.has(r.kind) && typeof r.text === 'string' && (r.tool === undefined || typeof r.tool === 'string');
    case 'end':
      return OUTCOMES.has(r.outcome);
    case 'tool':
      return isToolEvent(r.event);
    default:
      return false;
  }
}

/** A stored record's text read back; undefined for a line that is not a record (a torn write). */
export function parseTokenRecord(text: string): TokenRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isTokenRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
