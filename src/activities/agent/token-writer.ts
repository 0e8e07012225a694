/**
 * Writes a streaming model call's output to its run's token stream in the content store, for
 * watchers, without passing through the workflow: a `start` record when the call begins, its
 * pieces as they come, an `end` record when it answers or fails. The first piece is written as
 * soon as it arrives; later ones are joined (TokenPieces) and written at most once per `interval`,
 * one write in flight at a time, so a call costs the store a bounded number of writes whatever its
 * token count. Best effort: a failed write is logged and dropped, never failing the call, whose
 * answer is recorded durably either way.
 */
import { log } from '@temporalio/activity';
import { PieceRedactor, type SecretSet } from '../../common/secrets';
import type { StreamEvent } from '../../contracts/stream-events';
import type { StreamCall, TokenRecord, TokenStreamWriter } from '../../contracts/token-stream';
import { DEFAULT_TOKEN_BATCH_MS } from '../../contracts/watch-topics';
import { TokenPieces } from './token-pieces';

export interface TokenWriter {
  push(event: StreamEvent): void;
  /**
   * Writes what is left and the call's end; resolves once it is stored (or dropped). Never throws;
   * a second close changes nothing.
   */
  close(outcome: 'answered' | 'failed'): Promise<void>;
}

const DELTA_OF_END = {
  text_end: 'text_delta',
  thinking_end: 'thinking_delta',
  tool_call_end: 'tool_call_delta',
} as const;

/**
 * Deltas with the worker's secrets replaced, a secret split across deltas included: each block's
 * last characters wait for its next delta, and its end sends them.
 */
function deltaRedactor(secrets: SecretSet): (event: StreamEvent) => StreamEvent[] {
  const blocks = new Map<number, PieceRedactor>();
  return (event) => {
    if (event.type === 'text_delta' || event.type === 'thinking_delta' || event.type === 'tool_call_delta') {
      const redactor = blocks.get(event.index) ?? new PieceRedactor(secrets);
      blocks.set(event.index, redactor);
      return [{ ...event, delta: redactor.push(event.delta) }];
    }
    if (event.type === 'text_end' || event.type === 'thinking_end' || event.type === 'tool_call_end') {
      const rest = blocks.get(event.index)?.flush();
      blocks.delete(event.index);
      return rest ? [{ type: DELTA_OF_END[event.type], index: event.index, delta: rest }, event] : [event];
    }
    return [event];
  };
}

/** Appends to run `runId`'s token stream, best effort: a failed write is dropped, the first one logged. */
export function tokenAppender(store: TokenStreamWriter, runId: string, warning: string) {
  let failed = false;
  return async (records: TokenRecord[]): Promise<void> => {
    try {
      await store.appendTokens(runId, records);
    } catch (err) {
      if (!failed) log.warn(warning, { error: String(err) });
      failed = true;
    }
  };
}

/**
 * Opens the stream of one call of run `runId` and writes its `start` record (`after`: the run's
 * events the call follows); `interval` is the least time between two writes of pieces (the
 * worker's config), `secrets` are replaced in every piece before it leaves the worker.
 */
export function openTokenWriter(
  store: TokenStreamWriter,
  runId: string,
  call: StreamCall,
  options: { after?: number; interval?: number; secrets?: SecretSet } = {},
): TokenWriter {
  const interval = options.interval ?? DEFAULT_TOKEN_BATCH_MS;
  const { after } = options;
  let pending: TokenRecord[] = [{ ...call, type: 'start', ...(after === undefined ? {} : { after }), at: Date.now() }];
  let writing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** When the last write of pieces began; the first piece goes out at once. */
  let piecesWrittenAt = Number.NEGATIVE_INFINITY;
  const append = tokenAppender(store, runId, 'token stream write failed; the watchers miss these tokens');
  // Pieces are cut when a write takes them, so a piece holds everything of one block since the last write.
  const pieces = new TokenPieces(call, Number.POSITIVE_INFINITY, (delta, since) => {
    const { kind, text, tool } = delta;
    pending.push({ ...call, type: 'piece', kind, text, ...(tool ? { tool } : {}), at: since });
  });
  let hasPieces = false;

  const write = (): Promise<void> => {
    pieces.flush();
    const records = pending;
    pending = [];
    if (hasPieces) piecesWrittenAt = Date.now();
    hasPieces = false;
    writing = append(records).finally(() => {
      writing = undefined;
      if (hasPieces) schedule();
    });
    return writing;
  };
  /** Writes now, or once the write in flight is done and the interval since the last has passed. */
  const schedule = () => {
    if (writing || timer) return;
    const wait = piecesWrittenAt + interval - Date.now();
    if (wait <= 0) void write();
    else
      timer = setTimeout(() => {
        timer = undefined;
        if (!writing) void write();
      }, wait);
  };
  void write();

  const redact = options.secrets ? deltaRedactor(options.secrets) : (event: StreamEvent) => [event];
  let closed: Promise<void> | undefined;
  const end = async (outcome: 'answered' | 'failed') => {
    clearTimeout(timer);
    timer = undefined;
    hasPieces = false;
    while (writing) await writing;
    pieces.flush();
    pending.push({ ...call, type: 'end', outcome, at: Date.now() });
    await write();
  };
  return {
    push(event) {
      if (closed) return;
      for (const clean of redact(event)) {
        pieces.push(clean, Date.now());
        if (clean.type.endsWith('_delta')) hasPieces = true;
      }
      if (hasPieces) schedule();
    },
    close(outcome) {
      closed ??= end(outcome);
      return closed;
    },
  };
}
