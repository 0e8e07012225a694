/**
 * A worker SIGKILLed while its model call streams to a watcher, on both stores: the call's retry
 * streams again under the next attempt, the watcher shows the dead attempt's pieces and then the
 * retried attempt's on their own (never a piece of the dead one after them), and the retried
 * attempt's text is the run's final text. The watchers read the store the worker processes write,
 * from this process and from `durable-agents watch` in another, as a watcher on another host would.
 */
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { WatchPrinter } from '../../src/cli/watch-output';
import type { TokenDelta, WatchItem } from '../../src/contracts/watch-topics';
import { FileContentStore, PostgresContentStore, type ContentStore } from '../../src/store';
import { reply } from '../../src/testing/fake-provider';
import { PRIMARY, waitFor } from '../agent/agent-kit';
import { createTestDatabase } from '../kit/postgres';
import { runCli } from '../kit/cli';
import { testConnection } from '../kit/temporal';
import { lossScene } from '../kit/worker-loss';
import { useWorkerHosts, type WorkerHosts } from '../kit/worker-process';

/** About 35 s of streaming, long past the kill. */
const LOST = 'These words stream slowly from a worker that is about to die. '.repeat(30);
const FINAL = 'The answer, streamed again by the worker that took the call over.';

interface Backend {
  name: string;
  /** The workers' environment for the store, and the same store opened here. */
  open(hosts: WorkerHosts): Promise<{ env: NodeJS.ProcessEnv; store: ContentStore; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'file store',
    async open(hosts) {
      // The workers' own store: DURABLE_AGENTS_STORE_DIR=store in the hosts' directory.
      const store = new FileContentStore(path.join(hosts.dir, 'store'));
      return { env: {}, store, cleanup: () => store.close() };
    },
  },
  {
    name: 'PostgreSQL store',
    async open() {
      const db = await createTestDatabase();
      const store = await PostgresContentStore.open(db.url);
      return {
        env: { DURABLE_AGENTS_STORE_URL: db.url },
        store,
        cleanup: async () => {
          await store.close();
          await db.drop();
        },
      };
    },
  },
];

const deltas = (items: WatchItem[]): TokenDelta[] => items.flatMap((i) => (i.topic === 'tokens' ? [i.delta] : []));

describe.each(backends)('a worker SIGKILLed while its model call streams, on the $name', (backend) => {
  const hosts = useWorkerHosts('stream-worker-lost');

  it("shows the retried attempt's tokens on their own, and its text is the result's", async () => {
    let requests = 0;
    hosts.fake.respond(() =>
      ++requests === 1 ? { ...reply.text(LOST), eventDelayMs: 150 } : { ...reply.text(FINAL), eventDelayMs: 20 },
    );
    const { env, store, cleanup } = await backend.open(hosts);
    try {
      const { agents, client, taskQueue, replaceWorker } = await lossScene(hosts, 'stream-worker-lost', env);
      const watcher = new AgentClient(client, taskQueue, { store });
      const id = await agents.start({ task: 'Answer while watched.', model: PRIMARY, stream: true });
      // `durable-agents watch` in a process of its own, with the workers' store settings.
      const { address, namespace } = await testConnection();
      const cli = runCli(['watch', id], {
        cwd: hosts.dir,
        env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_STORE_DIR: 'store', ...env },
      });
      const items: WatchItem[] = [];
      const watching = (async () => {
        for await (const item of watcher.watch(id)) items.push(item);
      })();
      await waitFor(() => deltas(items).length >= 3, 'the first attempt’s tokens at the watcher', 60_000);
      await replaceWorker();
      await watching;
      const result = await agents.result(id);
      expect(result).toMatchObject({ status: 'completed', finalText: FINAL });

      const tokens = deltas(items);
      const retried = tokens.findIndex((d) => d.attempt === 2);
      expect(retried).toBeGreaterThan(0);
      expect(tokens.slice(0, retried).every((d) => d.attempt === 1)).toBe(true);
      expect(tokens.slice(retried).every((d) => d.attempt === 2)).toBe(true);
      expect(
        tokens
          .slice(retried)
          .map((d) => d.text)
          .join(''),
      ).toBe(result.finalText);
      expect(
        LOST.startsWith(
          tokens
            .slice(0, retried)
            .map((d) => d.text)
            .join(''),
        ),
      ).toBe(true);

      // What `watch` prints: the retried attempt's text on a line of its own, named, and the end once.
      let printed = '';
      const printer = new WatchPrinter((text) => (printed += text));
      for (const item of items) printer.print(item);
      printer.finish();
      expect(printed).toContain(`\n(attempt 2) ${FINAL}\n`);
      expect(printed.match(/\] done \(completed\)/g)).toHaveLength(1);
      expect(printed).not.toContain(`${FINAL}\n${FINAL}`);
      const watched = await cli;
      expect(watched.stderr).toBe('');
      expect(watched.stdout).toContain(`\n(attempt 2) ${FINAL}\n`);
      expect(watched.stdout.startsWith(`[turn 1] calling ${PRIMARY}\n${LOST.slice(0, 8)}`)).toBe(true);
    } finally {
      await cleanup();
    }
  }, 120_000);
});
