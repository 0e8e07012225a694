/**
 * A run's tokens reach its watchers through the content store, not through its history: a watcher
 * that joins mid-answer gets the whole answer, a streamed and watched run's history is the size of
 * the same run unstreamed, and a watch without the workers' store says so once and goes on with
 * the run's events.
 */
import { Client } from '@temporalio/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import type { TokenDelta, WatchItem } from '../../src/contracts/watch-topics';
import { FileContentStore } from '../../src/store';
import { fakeProviderEnv, reply } from '../../src/testing/fake-provider';
import { workerConfig } from '../../src/worker/worker-config';
import { withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from './agent-kit';

const ANSWER = 'An answer written slowly, piece after piece, so that a watcher can join in the middle of it.';

const deltas = (items: WatchItem[]): TokenDelta[] => items.flatMap((i) => (i.topic === 'tokens' ? [i.delta] : []));
const eventTypes = (items: WatchItem[]): string[] => items.flatMap((i) => (i.topic === 'events' ? [i.event.type] : []));

async function collect(watch: AsyncIterable<WatchItem>): Promise<WatchItem[]> {
  const items: WatchItem[] = [];
  for await (const item of watch) items.push(item);
  return items;
}

describe("a run's tokens on the way to its watchers", () => {
  const fx = useAgentFixture();
  const withStore = (client: Client, taskQueue: string) => new AgentClient(client, taskQueue, { store: fx.store });

  it('gives a watcher that joins mid-answer the whole answer, after the events before it', async () => {
    fx.fake.script({ ...reply.text(ANSWER), eventDelayMs: 40 });
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = withStore(client, taskQueue);
      const id = await agents.start({ task: 'Answer slowly.', model: PRIMARY, stream: true });
      // Mid-answer: the store holds some of the answer's pieces, not all of them.
      const deadline = Date.now() + 30_000;
      let read = '';
      while (read === '' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const { records } = await fx.store.readTokens(id, 0);
        read = records.flatMap((r) => (r.type === 'piece' ? [r.text] : [])).join('');
      }
      expect(read.length).toBeGreaterThan(0);
      expect(read.length).toBeLessThan(ANSWER.length);
      const items = await collect(agents.watch(id));
      const result = await agents.result(id);
      expect(result.finalText).toBe(ANSWER);
      expect(
        deltas(items)
          .map((d) => d.text)
          .join(''),
      ).toBe(ANSWER);
      expect(deltas(items).every((d) => d.seq === 1 && d.attempt === 1 && d.kind === 'text')).toBe(true);
      // The turn's start came before its tokens, its end after them.
      const firstToken = items.findIndex((i) => i.topic === 'tokens');
      const lastToken = items.map((i) => i.topic).lastIndexOf('tokens');
      expect(eventTypes(items.slice(0, firstToken))).toEqual(['turn_start']);
      expect(eventTypes(items.slice(lastToken))).toEqual(['turn_end', 'done']);
    });
  });

  /** A client of `client`'s server whose every read of a run's events answers 1.5 s late, as from a busy worker; `answered` counts those that did. */
  function slowReads(client: Client): { client: Client; answered: () => number } {
    let answered = 0;
    const slow = new Client({
      connection: client.connection,
      namespace: client.options.namespace,
      interceptors: {
        workflow: [
          {
            query: async (input, next) => {
              await new Promise((resolve) => setTimeout(resolve, 1_500));
              const answer = await next(input);
              answered += 1;
              return answer;
            },
          },
        ],
      },
    });
    return { client: slow, answered: () => answered };
  }

  /** The items of a watch of a streaming run of {@link ANSWER}, and how many event reads had answered at its first token. */
  async function watchSlowly(agents: AgentClient, reads: () => number) {
    const id = await agents.start({ task: 'Answer.', model: PRIMARY, stream: true });
    const items: WatchItem[] = [];
    let readsAtFirstToken: number | undefined;
    for await (const item of agents.watch(id)) {
      if (item.topic === 'tokens') readsAtFirstToken ??= reads();
      items.push(item);
    }
    const firstToken = items.findIndex((i) => i.topic === 'tokens');
    expect(firstToken).toBeGreaterThan(0);
    expect(eventTypes(items.slice(0, firstToken))).toEqual(['turn_start']);
    expect(eventTypes(items)).toEqual(['turn_start', 'turn_end', 'done']);
    expect(
      deltas(items)
        .map((d) => d.text)
        .join(''),
    ).toBe(ANSWER);
    return { id, readsAtFirstToken };
  }

  it("gives a call's tokens after the events before it, however slow the run's worker is to answer the watch", async () => {
    fx.fake.script({ ...reply.text(ANSWER), eventDelayMs: 20 });
    // The fixture's own model call: its worker writes no events ahead of it, so the watch reads them from the run.
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const slow = slowReads(client);
      const { readsAtFirstToken } = await watchSlowly(withStore(slow.client, taskQueue), slow.answered);
      expect(readsAtFirstToken).toBeGreaterThan(0);
    });
  });

  it("shows the events a call follows from its worker's record, before the run answers a read", async () => {
    fx.fake.script({ ...reply.text(ANSWER), eventDelayMs: 20 });
    const config = workerConfig({ file: null, env: fakeProviderEnv(fx.fake, 'test-key') });
    await withWorker({ config, store: fx.store }, async ({ client, taskQueue }) => {
      const slow = slowReads(client);
      const { id, readsAtFirstToken } = await watchSlowly(withStore(slow.client, taskQueue), slow.answered);
      expect(readsAtFirstToken).toBe(0);
      const { records } = await fx.store.readTokens(id, 0);
      const ahead = records.filter((r) => r.type === 'events');
      expect(ahead.map((r) => r.entries.map((e) => e.event.type))).toEqual([['turn_start']]);
      expect(records.find((r) => r.type === 'start')).toMatchObject({ after: ahead[0].after });
    });
  });

  it('adds no history event to a streamed, watched run over the same run unstreamed', async () => {
    const script = () =>
      fx.fake.script(
        // Over a second of streaming each, so a model call spans several token batches.
        { ...reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }], { text: ANSWER }), eventDelayMs: 100 },
        { ...reply.text(ANSWER), eventDelayMs: 100 },
      );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = withStore(client, taskQueue);
      const historyLength = async (id: string) => (await client.workflow.getHandle(id).fetchHistory()).events!.length;
      script();
      const plain = await agents.start({ task: 'Add 1 and 2.', model: PRIMARY });
      await agents.result(plain);
      script();
      const streamed = await agents.start({ task: 'Add 1 and 2.', model: PRIMARY, stream: true });
      const items = await collect(agents.watch(streamed));
      expect(deltas(items).length).toBeGreaterThan(2);
      expect(await historyLength(streamed)).toBe(await historyLength(plain));
    });
  });

  it('lets the process go on at once when a watcher leaves at its first token', async () => {
    fx.fake.script({ ...reply.text(ANSWER.repeat(3)), eventDelayMs: 40 });
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = withStore(client, taskQueue);
      const id = await agents.start({ task: 'Answer slowly.', model: PRIMARY, stream: true });
      for await (const item of agents.watch(id)) if (item.topic === 'tokens') break;
      // The reads the watch left behind end on their own without holding the event loop.
      let last = Date.now();
      let longest = 0;
      const beat = setInterval(() => {
        longest = Math.max(longest, Date.now() - last);
        last = Date.now();
      }, 10);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      clearInterval(beat);
      expect(longest).toBeLessThan(500);
      await agents.result(id);
    });
  });

  it('says once that it cannot show the tokens, without the store or with another, and ends with the final text', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'other-store-'));
    const other = new FileContentStore(elsewhere);
    try {
      await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
        for (const [agents, says] of [
          [new AgentClient(client, taskQueue), /which this watch was not given/],
          [new AgentClient(client, taskQueue, { store: other }), /no token of run .* reached the file store in/],
        ] as const) {
          fx.fake.script(
            reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 2 } }], { text: 'Adding.' }),
            reply.text('Four.'),
          );
          const id = await agents.start({ task: 'Add 2 and 2.', model: PRIMARY, stream: true });
          const notices: string[] = [];
          const items = await collect(agents.watch(id, { onNotice: (message) => notices.push(message) }));
          expect(notices).toHaveLength(1);
          expect(notices[0]).toMatch(says);
          expect(notices[0]).toContain(id);
          expect(deltas(items)).toEqual([]);
          const done = items.find((i) => i.topic === 'events' && i.event.type === 'done');
          expect(done?.topic === 'events' && done.event.type === 'done' && done.event.finalText).toBe('Four.');
        }
        // A run that does not stream gets no notice.
        fx.fake.script(reply.text('Quiet.'));
        const agents = new AgentClient(client, taskQueue);
        const id = await agents.start({ task: 'Say it.', model: PRIMARY });
        const notices: string[] = [];
        await collect(agents.watch(id, { onNotice: (message) => notices.push(message) }));
        expect(notices).toEqual([]);
      });
    } finally {
      await other.close();
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
