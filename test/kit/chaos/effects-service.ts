/**
 * The outside service the chaos suite's side-effecting tool calls, as a payment API would be: it
 * applies an operation once per idempotency key (a repeated key is answered as already applied)
 * and remembers every invocation. It lives in the test's process, so it survives every worker
 * kill and counts what the workers really did. It holds each answer for a while, so a kill can
 * land inside a tool call.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Environment variable of the worker process: base URL of the effects service. */
export const EFFECTS_URL_ENV = 'CHAOS_EFFECTS_URL';

/** One call of the tool that reached the service. */
export interface Invocation {
  key: string;
  /** The operation the model asked for (`r07/step-2`); the run's tag comes first. */
  op: string;
  pid: number;
  at: number;
  /** When the service answered; undefined while held or when the caller died first. */
  answeredAt?: number;
  /** Whether this invocation made the effect (the first with its key). */
  applied: boolean;
}

export interface EffectsService {
  url: string;
  readonly invocations: readonly Invocation[];
  /** Effects made per operation: exactly one each when idempotency keys hold across retries. */
  effectsPerOp(): Map<string, number>;
  /** Idempotency keys seen per operation. */
  keysPerOp(): Map<string, Set<string>>;
  /** Invocations still held (a tool call in flight). */
  held(): Invocation[];
  /** Called when an invocation arrives and when it is answered. */
  onInvocation(listener: (invocation: Invocation) => void): void;
  onAnswer(listener: (invocation: Invocation) => void): void;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/** Starts the service; each answer is held for `holdMs(invocation)` milliseconds. */
export async function startEffectsService(holdMs: (op: string) => number): Promise<EffectsService> {
  const invocations: Invocation[] = [];
  const appliedKeys = new Set<string>();
  const held = new Set<Invocation>();
  const arrivals: ((i: Invocation) => void)[] = [];
  const answers: ((i: Invocation) => void)[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    readJson(req).then(
      (body) => {
        const { key, op, pid } = body;
        if (typeof key !== 'string' || typeof op !== 'string' || typeof pid !== 'number') {
          res.writeHead(400).end('key, op and pid are required');
          return;
        }
        const invocation: Invocation = { key, op, pid, at: Date.now(), applied: !appliedKeys.has(key) };
        appliedKeys.add(key);
        invocations.push(invocation);
        held.add(invocation);
        for (const listener of arrivals) listener(invocation);
        const timer = setTimeout(() => {
          timers.delete(timer);
          held.delete(invocation);
          if (res.destroyed) return;
          invocation.answeredAt = Date.now();
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ applied: invocation.applied }));
          for (const listener of answers) listener(invocation);
        }, holdMs(op));
        timers.add(timer);
        res.on('close', () => held.delete(invocation));
      },
      (err: unknown) => res.writeHead(400).end(String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  const group = <V>(value: (i: Invocation) => V, merge: (acc: V | undefined, v: V) => V): Map<string, V> => {
    const out = new Map<string, V>();
    for (const i of invocations) out.set(i.op, merge(out.get(i.op), value(i)));
    return out;
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    invocations,
    effectsPerOp: () =>
      group(
        (i): number => (i.applied ? 1 : 0),
        (acc: number | undefined, v: number) => (acc ?? 0) + v,
      ),
    keysPerOp: () =>
      group(
        (i) => new Set([i.key]),
        (acc, v) => new Set([...(acc ?? []), ...v]),
      ),
    held: () => [...held],
    onInvocation: (listener) => void arrivals.push(listener),
    onAnswer: (listener) => void answers.push(listener),
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
