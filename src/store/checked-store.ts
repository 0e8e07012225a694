/**
 * What both stores do in front of their storage: check every input (./store-input), hash a body
 * from its canonical JSON, keep the worker-side body cache and parse stored bodies. A store
 * implements the protected methods, which only ever see checked input.
 */
import crypto from 'node:crypto';
import type { TokenRead, TokenRecord } from '../contracts/token-stream';
import { BodyCache } from './body-cache';
import {
  StoreError,
  type ContentStore,
  type ConversationLog,
  type DeletedCounts,
  type LogEntry,
  type StoredConversation,
  type SummaryRecord,
  type WriteOrder,
} from './content-store';
import {
  bodyText,
  checkConversationId,
  checkCursor,
  checkEntries,
  checkHash,
  checkRange,
  checkSummary,
  checkTokenRecords,
  orderOf,
} from './store-input';
import type { TokenStreamStore } from './token-streams';

export abstract class CheckedContentStore implements ContentStore {
  abstract readonly description: string;
  /** Bodies this process has read or written (a hash names one content forever). */
  protected readonly bodies: BodyCache;

  constructor(cacheBytes?: number) {
    this.bodies = new BodyCache(cacheBytes);
  }

  /** Stores the body text under its hash and, given a conversation, records that it uses the body. */
  protected abstract storeBody(hash: string, text: string, conversationId?: string): Promise<void>;
  /** The stored texts of `hashes` (none cached here); a hash the storage lacks is left out. */
  protected abstract readBodies(hashes: readonly string[]): Promise<Map<string, string>>;
  /** Writes non-empty `entries`, each position keeping its newest write. */
  protected abstract appendEntries(
    conversationId: string,
    entries: readonly LogEntry[],
    order: WriteOrder,
  ): Promise<void>;
  /** Entries `[fromSeq, toSeq)`, a non-empty range; a missing one is a `gap`. */
  protected abstract entriesBetween(conversationId: string, fromSeq: number, toSeq: number): Promise<LogEntry[]>;
  protected abstract appendSummary(conversationId: string, summary: SummaryRecord, order: WriteOrder): Promise<void>;
  protected abstract logOf(conversationId: string): Promise<ConversationLog>;
  /** Deletes a non-empty list of conversations' logs and bodies (see {@link ContentStore.deleteConversations}). */
  protected abstract removeConversations(ids: readonly string[]): Promise<Omit<DeletedCounts, 'streams'>>;
  /** Every conversation with a log entry or a recorded body. */
  protected abstract conversationsKept(): Promise<StoredConversation[]>;
  /** The runs' token streams of this backend. */
  protected abstract readonly streams: TokenStreamStore;
  /** Releases the backend's connections (the token streams are closed first). */
  protected abstract closeStorage(): Promise<void>;

  async put(body: unknown, conversationId?: string): Promise<string> {
    const text = bodyText(body);
    if (conversationId !== undefined) checkConversationId(conversationId);
    const hash = crypto.createHash('sha256').update(text).digest('hex');
    await this.storeBody(hash, text, conversationId);
    return hash;
  }

  async get<T = unknown>(hash: string): Promise<T> {
    return (await this.getMany<T>([hash]))[0];
  }

  async getMany<T = unknown>(hashes: readonly string[]): Promise<T[]> {
    // Cache hits first, without a promise each: a long view is mostly cache hits.
    const out = hashes.map((hash) => this.bodies.get<T>(checkHash(hash)));
    const missing = [...new Set(hashes.filter((_, i) => out[i] === undefined))];
    if (missing.length === 0) return out as T[];
    const texts = await this.readBodies(missing);
    const read = new Map(missing.flatMap((hash) => (texts.has(hash) ? [[hash, this.parse<T>(hash, texts)]] : [])));
    return out.map((value, i) => {
      if (value !== undefined) return value;
      const found = read.get(hashes[i]);
      if (found === undefined)
        throw new StoreError('not_found', `no body stored under ${hashes[i]} in ${this.description}`);
      return found as T;
    });
  }

  private parse<T>(hash: string, texts: Map<string, string>): T {
    const text = texts.get(hash)!;
    let value: T;
    try {
      value = JSON.parse(text) as T;
    } catch {
      throw new StoreError('corrupt', `body ${hash} in ${this.description} is not valid JSON`);
    }
    return this.bodies.set(hash, value, text.length);
  }

  async writeEntries(conversationId: string, entries: readonly LogEntry[], order?: WriteOrder): Promise<void> {
    checkConversationId(conversationId);
    checkEntries(entries);
    const ordered = orderOf(order);
    if (entries.length > 0) await this.appendEntries(conversationId, entries, ordered);
  }

  async readEntries(conversationId: string, fromSeq: number, toSeq: number): Promise<LogEntry[]> {
    checkConversationId(conversationId);
    checkRange(fromSeq, toSeq);
    return toSeq <= fromSeq ? [] : this.entriesBetween(conversationId, fromSeq, toSeq);
  }

  async recordSummary(conversationId: string, summary: SummaryRecord, order?: WriteOrder): Promise<void> {
    checkConversationId(conversationId);
    checkSummary(summary);
    await this.appendSummary(conversationId, summary, orderOf(order));
  }

  async readLog(conversationId: string): Promise<ConversationLog> {
    checkConversationId(conversationId);
    return this.logOf(conversationId);
  }

  async listConversations(): Promise<StoredConversation[]> {
    const byId = new Map((await this.conversationsKept()).map((c) => [c.id, c]));
    for (const stream of await this.streams.list()) {
      const kept = byId.get(stream.id);
      if (!kept || kept.lastWriteAt < stream.lastWriteAt) byId.set(stream.id, stream);
    }
    return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async deleteConversations(ids: readonly string[]): Promise<DeletedCounts> {
    ids.forEach(checkConversationId);
    if (ids.length === 0) return { conversations: 0, entries: 0, bodies: 0, streams: 0 };
    const streams = await this.streams.delete(ids);
    return { ...(await this.removeConversations(ids)), streams };
  }

  async appendTokens(runId: string, records: readonly TokenRecord[]): Promise<void> {
    checkConversationId(runId);
    checkTokenRecords(records);
    if (records.length > 0) await this.streams.append(runId, records);
  }

  async readTokens(runId: string, cursor: number): Promise<TokenRead> {
    checkConversationId(runId);
    checkCursor(cursor);
    return this.streams.read(runId, cursor);
  }

  subscribeTokens(runId: string, onChange: () => void): () => void {
    checkConversationId(runId);
    return this.streams.subscribe(runId, onChange);
  }

  async close(): Promise<void> {
    await this.streams.close();
    await this.closeStorage();
  }
}
