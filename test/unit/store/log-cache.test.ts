/**
 * The worker's settled-log cache behind a model call's view read: later calls of a run read only
 * the new positions; positions the workflow has not moved past, another run id (a reset) and a
 * moved view start are read from the store.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { readLogged } from '../../../src/activities/agent/conversation-view';
import { FileContentStore, type LogEntry } from '../../../src/store';

describe('settled-log cache of the view read', () => {
  let dir: string;
  let store: FileContentStore;
  let reads: [number, number][];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-cache-'));
    store = new FileContentStore(dir);
    reads = [];
    const readEntries = store.readEntries.bind(store);
    store.readEntries = (id: string, from: number, to: number): Promise<LogEntry[]> => {
      reads.push([from, to]);
      return readEntries(id, from, to);
    };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const id = 'conversation';
  async function write(seq: number, text: string, order = { scheduledAt: 1, attempt: 1 }): Promise<void> {
    const hash = await store.put({ role: 'user', content: text, timestamp: 0 }, id);
    await store.writeEntries(id, [{ seq, kind: 'user', hash }], order);
  }
  const texts = (logged: { body: unknown }[]) => logged.map((l) => (l.body as { content: string }).content);
  /** Runs functions inside an activity of the run `runId`, as a worker does. */
  const inRun = (runId: string) => {
    const env = new MockActivityEnvironment({ workflowExecution: { workflowId: id, runId } });
    return { run: <T>(fn: () => Promise<T>): Promise<T> => env.run(fn) as Promise<T> };
  };

  it('reads only the positions added since the previous model call of the run', async () => {
    const run = inRun(crypto.randomUUID());
    const view = (from: number, to: number) => run.run(() => readLogged(store, id, from, to, { settledBelowTo: true }));
    for (let seq = 0; seq < 3; seq++) await write(seq, `m${seq}`);
    expect(texts(await view(0, 3))).toEqual(['m0', 'm1', 'm2']);
    await write(3, 'm3');
    await write(4, 'm4');
    expect(texts(await view(0, 5))).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    // A compaction moved the view's start: nothing is read again.
    expect(texts(await view(2, 5))).toEqual(['m2', 'm3', 'm4']);
    expect(reads).toEqual([
      [0, 3],
      [3, 5],
    ]);
  });

  it('never caches a position the workflow may still rewrite, nor across runs', async () => {
    const run = inRun(crypto.randomUUID());
    const view = (to: number) => run.run(() => readLogged(store, id, 0, to, { settledBelowTo: true }));
    await write(0, 'task');
    await write(1, 'tool attempt result', { scheduledAt: 10, attempt: 1 });
    // A read that is not a model call's (no settled positions) leaves nothing behind.
    expect(texts(await readLogged(store, id, 0, 2))).toEqual(['task', 'tool attempt result']);
    expect(texts(await view(1))).toEqual(['task']);
    // Position 1 was past the model call's view: the workflow's later error result replaces it.
    await write(1, 'error result', { scheduledAt: 20, attempt: 1 });
    expect(texts(await view(2))).toEqual(['task', 'error result']);
    // A reset run of the same conversation reads everything afresh.
    await write(1, 'rewritten after reset', { scheduledAt: 30, attempt: 1 });
    const reset = await inRun(crypto.randomUUID()).run(() => readLogged(store, id, 0, 2, { settledBelowTo: true }));
    expect(texts(reset)).toEqual(['task', 'rewritten after reset']);
    expect(reads).toEqual([
      [0, 2],
      [0, 1],
      [1, 2],
      [0, 2],
    ]);
  });

  it('gives each of two overlapping reads of a run the right entries', async () => {
    const run = inRun(crypto.randomUUID());
    for (let seq = 0; seq < 6; seq++) await write(seq, `m${seq}`);
    await run.run(() => readLogged(store, id, 0, 2, { settledBelowTo: true }));
    const [a, b] = await Promise.all([
      run.run(() => readLogged(store, id, 0, 4, { settledBelowTo: true })),
      run.run(() => readLogged(store, id, 1, 6, { settledBelowTo: true })),
    ]);
    expect(texts(a)).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(texts(b)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(texts(await run.run(() => readLogged(store, id, 0, 6, { settledBelowTo: true })))).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
    ]);
  });
});
