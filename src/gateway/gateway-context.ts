/**
 * What each protocol module of a gateway is given: the runs, the caller of a request, and the
 * gateway's own address and log. A protocol module registers its routes on the gateway's app.
 */
import type { Context } from 'hono';
import { ApiKeys, presentedKey, type AuthOutcome } from './api-keys';
import type { GatewayRuns } from './run-bridge';

export interface GatewayContext {
  runs: GatewayRuns;
  /** The caller of a request, or why it is refused (every caller is let in when the gateway has no keys). */
  authorize(c: Context): AuthOutcome;
  /** The base URL clients reach the gateway at (the A2A card names it). */
  publicUrl(c: Context): string;
  /** A line for the gateway's log: never a key, never a message body. */
  log(line: string): void;
}

const EVERYONE: AuthOutcome = { ok: true, caller: {}, may: () => true };

/** The authorize function of a gateway with `keys` (absent: no auth, loopback only). */
export function authorizer(keys: ApiKeys | undefined): (c: Context) => AuthOutcome {
  return (c) => (keys ? keys.authenticate(presentedKey((name) => c.req.header(name))) : EVERYONE);
}

/** A JSON-RPC protocol's answer to a refused caller (request `id`): its error, with a bearer challenge on 401. */
export const rpcRefusal = (c: Context, auth: Extract<AuthOutcome, { ok: false }>, id: string | number | null) =>
  c.json(
    { jsonrpc: '2.0', id, error: { code: -32001, message: auth.message } },
    auth.status,
    auth.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {},
  );

/**
 * Yields `items` until `signal` aborts, then ends at once (also while an item is awaited), closing
 * the source: a client that goes away ends its read of the run, not the run.
 */
export async function* untilAborted<T>(
  items: AsyncIterable<T>,
  signal: AbortSignal,
): AsyncGenerator<T, void, undefined> {
  const iterator = items[Symbol.asyncIterator]();
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted' || next.done) return;
      yield next.value;
    }
  } finally {
    void iterator.return?.(undefined)?.catch?.(() => undefined);
  }
}
