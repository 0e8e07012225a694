/**
 * What the gateway tests share: a published agent over the fake provider's model, a gateway in
 * this process for the worker a test runs, and event collectors for the protocols' clients.
 */
import type { AgentClient } from '../../src/client';
import { startGateway, type Gateway, type GatewayOptions, type PublishedAgents } from '../../src/gateway';
import { withWorker } from '../kit/temporal';
import { PRIMARY, type AgentFixture } from '../agent/agent-kit';

export const PUBLISHED: PublishedAgents = {
  reader: {
    description: 'Adds numbers and deletes files when asked',
    instructions: 'You are a careful assistant.',
    model: PRIMARY,
    tools: ['add', 'delete_file'],
    approve: ['delete_file'],
    askUser: true,
  },
  other: { description: 'Another agent', model: PRIMARY, tools: ['add'] },
};

/** Runs `fn` with a worker and a gateway in front of it; the gateway closes after. */
export async function withGateway(
  fx: AgentFixture,
  options: Partial<GatewayOptions>,
  fn: (gateway: Gateway, agents: AgentClient) => Promise<void>,
): Promise<void> {
  await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
    const agents = fx.agents(client, taskQueue);
    const gateway = await startGateway({ agents, published: PUBLISHED, port: 0, tokens: fx.store, ...options });
    try {
      await fn(gateway, agents);
    } finally {
      await gateway.close();
    }
  });
}

/** A subscribable stream of events, as the protocols' clients give them (rxjs observables). */
interface Observable<T> {
  subscribe(observer: { next(v: T): void; error(e: unknown): void; complete(): void }): { unsubscribe(): void };
}

/**
 * Every event until the stream completes, or until `stopAfter` says so: then the client goes away
 * (`abort` ends its request, as an AG-UI client's `abortRun`).
 */
export function collect<T>(
  source: Observable<T>,
  stopAfter?: (events: T[]) => boolean,
  abort?: () => void,
): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const events: T[] = [];
    let done = false;
    const sub = source.subscribe({
      next: (e) => {
        if (done) return;
        events.push(e);
        if (stopAfter?.(events)) {
          done = true;
          queueMicrotask(() => {
            abort?.();
            sub.unsubscribe();
          });
          resolve(events);
        }
      },
      error: (e) => (done ? undefined : reject(e instanceof Error ? e : new Error(String(e)))),
      complete: () => (done ? undefined : resolve(events)),
    });
  });
}
