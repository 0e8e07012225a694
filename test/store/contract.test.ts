/**
 * The ContentStore contract, run against both stores: the file store in a temporary directory and
 * the PostgreSQL store on the jest run's real server (a fresh database).
 */
import crypto from 'node:crypto';
import type { ContentStore, LogEntry } from '../../src/store';
import { STORE_BACKENDS } from '../kit/store-backends';

const conv = (): string => `conv-${crypto.randomUUID()}`;
const nonce = (): string => crypto.randomUUID();

describe.each(STORE_BACKENDS)('$name', (backend) => {
  let a: ContentStore;
  let b: ContentStore;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, cleanup } = await backend.open());
  });
  afterAll(async () => cleanup());

  async function entry(seq: number, kind: LogEntry['kind'] = 'user', text = nonce()): Promise<LogEntry> {
    return { seq, kind, hash: await a.put({ role: 'user', content: text, timestamp: seq }) };
  }

  it('addresses bodies by content: equal bodies share one hash whatever the key order', async () => {
    const n = nonce();
    const h1 = await a.put({ role: 'user', content: n, timestamp: 1 });
    const h2 = await b.put({ timestamp: 1, content: n, role: 'user' });
    expect(h1).toMatch(/^[0-9a-f]{64}$/);
    expect(h2).toBe(h1);
    expect(await b.get(h1)).toEqual({ role: 'user', content: n, timestamp: 1 });
    const h3 = await a.put(['text with \u0000 and ☃', 1.5, null, { nested: true }]);
    expect(await b.getMany([h3, h1])).toEqual([
      ['text with \u0000 and ☃', 1.5, null, { nested: true }],
      await a.get(h1),
    ]);
  });

  it('reports a missing body, a gap and an unknown conversation as typed errors', async () => {
    await expect(a.get('0'.repeat(64))).rejects.toMatchObject({ code: 'not_found' });
    await expect(a.getMany([await a.put(nonce()), 'f'.repeat(64)])).rejects.toMatchObject({ code: 'not_found' });
    const id = conv();
    await a.writeEntries(id, [await entry(0), await entry(2)]);
    await expect(a.readEntries(id, 0, 3)).rejects.toMatchObject({
      code: 'gap',
      message: expect.stringContaining('position 1'),
    });
    expect(await a.readEntries(id, 2, 3)).toHaveLength(1);
    expect(await a.readEntries(id, 1, 1)).toEqual([]);
    await expect(a.readEntries(conv(), 0, 1)).rejects.toMatchObject({ code: 'gap' });
    expect(await a.readLog(id)).toEqual({
      entries: [expect.objectContaining({ seq: 0 }), expect.objectContaining({ seq: 2 })],
      summaries: [],
    });
    expect(await a.readLog(conv())).toEqual({ entries: [], summaries: [] });
  });

  it('refuses bad input with bad_input and stores nothing', async () => {
    const id = conv();
    const good = await entry(0);
    const bad: [string, () => Promise<unknown>][] = [
      ['hash', () => a.get('../../etc/passwd')],
      ['hash list', () => a.getMany(['ABC'])],
      ['body', () => a.put(undefined)],
      ['body with a bigint', () => a.put({ n: BigInt(1) })],
      ['conversation id', () => a.writeEntries('', [good])],
      ['negative position', () => a.writeEntries(id, [{ ...good, seq: -1 }])],
      ['fractional position', () => a.writeEntries(id, [{ ...good, seq: 1.5 }])],
      ['kind', () => a.writeEntries(id, [{ ...good, kind: 'robot' as LogEntry['kind'] }])],
      ['entry hash', () => a.writeEntries(id, [{ ...good, hash: 'x' }])],
      ['position twice', () => a.writeEntries(id, [good, good])],
      ['write order', () => a.writeEntries(id, [good], { scheduledAt: Number.NaN, attempt: 1 })],
      ['range', () => a.readEntries(id, -1, 2)],
      ['summary', () => a.recordSummary(id, { fromSeq: 3, toSeq: 1, hash: good.hash })],
    ];
    for (const [what, op] of bad) {
      const outcome = await op().then(
        () => ({ what, code: 'accepted' }),
        (err: { code?: string; name?: string }) => ({ what, code: err.code, name: err.name }),
      );
      expect(outcome).toEqual({ what, code: 'bad_input', name: 'StoreError' });
    }
    expect((await a.readLog(id)).entries).toEqual([]);
  });

  it('refuses an entry whose body is not stored', async () => {
    const id = conv();
    const hash = crypto.createHash('sha256').update(nonce()).digest('hex');
    await expect(a.writeEntries(id, [{ seq: 0, kind: 'user', hash }])).rejects.toMatchObject({ code: 'not_found' });
    expect((await a.readLog(id)).entries).toEqual([]);
  });

  it('makes a retried write harmless and shows every write to the other store at once', async () => {
    const id = conv();
    const e0 = await entry(0);
    const order = { scheduledAt: 1_000, attempt: 1 };
    await a.writeEntries(id, [e0], order);
    await a.writeEntries(id, [e0], order);
    expect(await b.readEntries(id, 0, 1)).toEqual([e0]);
    const e1 = await entry(1, 'assistant');
    await b.writeEntries(id, [e1], order);
    expect(await a.readEntries(id, 0, 2)).toEqual([e0, e1]);
    expect((await a.readLog(id)).entries).toEqual([e0, e1]);
  });

  it('never lets a superseded attempt replace a newer write, but lets a later activity rewrite', async () => {
    const id = conv();
    const [first, retry, zombie, workflow, late] = await Promise.all(
      [0, 1, 2, 3, 4].map(() => entry(5, 'tool_result')),
    );
    await a.writeEntries(id, [first], { scheduledAt: 1_000, attempt: 1 });
    await b.writeEntries(id, [retry], { scheduledAt: 1_000, attempt: 2 });
    // Attempt 1 on a worker presumed dead finishes after attempt 2 wrote.
    await a.writeEntries(id, [zombie], { scheduledAt: 1_000, attempt: 1 });
    expect(await a.readEntries(id, 5, 6)).toEqual([retry]);
    expect(await b.readEntries(id, 5, 6)).toEqual([retry]);
    // The workflow gave up on the tool and wrote an error result from a later activity.
    await b.writeEntries(id, [workflow], { scheduledAt: 2_000, attempt: 1 });
    expect(await a.readEntries(id, 5, 6)).toEqual([workflow]);
    // A third attempt of the tool activity that was still running changes nothing.
    await a.writeEntries(id, [late], { scheduledAt: 1_000, attempt: 3 });
    expect(await b.readEntries(id, 5, 6)).toEqual([workflow]);
    // Without an order a write counts as scheduled now: newer than all of the above.
    await a.writeEntries(id, [first]);
    expect(await b.readEntries(id, 5, 6)).toEqual([first]);
  });

  it('keeps every entry of concurrent writers, and the newest write of a contested position', async () => {
    const id = conv();
    const entries = await Promise.all(Array.from({ length: 30 }, (_, seq) => entry(seq)));
    await Promise.all(entries.map((e, i) => (i % 2 ? a : b).writeEntries(id, [e], { scheduledAt: 10, attempt: 1 })));
    expect(await a.readEntries(id, 0, 30)).toEqual(entries);
    const contenders = await Promise.all(Array.from({ length: 8 }, () => entry(30, 'assistant')));
    await Promise.all(
      contenders.map((e, i) => (i % 2 ? a : b).writeEntries(id, [e], { scheduledAt: 100 + ((i * 5) % 8), attempt: 1 })),
    );
    const newest = contenders[contenders.findIndex((_, i) => (i * 5) % 8 === 7)];
    expect(await b.readEntries(id, 30, 31)).toEqual([newest]);
  });

  it('records summaries against the conversation, newest per position', async () => {
    const id = conv();
    const s1 = await a.put({ role: 'summary', text: nonce(), timestamp: 1 }, id);
    const s2 = await a.put({ role: 'summary', text: nonce(), timestamp: 2 }, id);
    const zombie = await a.put({ role: 'summary', text: nonce(), timestamp: 3 }, id);
    await a.recordSummary(id, { fromSeq: 0, toSeq: 4, hash: s1 }, { scheduledAt: 5, attempt: 2 });
    await a.recordSummary(id, { fromSeq: 0, toSeq: 4, hash: zombie }, { scheduledAt: 5, attempt: 1 });
    await b.recordSummary(id, { fromSeq: 4, toSeq: 9, hash: s2 }, { scheduledAt: 6, attempt: 1 });
    await b.recordSummary(id, { fromSeq: 4, toSeq: 9, hash: s2 }, { scheduledAt: 6, attempt: 1 });
    expect((await b.readLog(id)).summaries).toEqual([
      { fromSeq: 0, toSeq: 4, hash: s1 },
      { fromSeq: 4, toSeq: 9, hash: s2 },
    ]);
  });

  it('lists conversations and deletes only what no kept conversation uses', async () => {
    const [gone, kept] = [conv(), conv()];
    const tools = { tools: nonce() };
    const shared = await a.put(tools, gone);
    expect(await b.put(tools, kept)).toBe(shared);
    const own = await entry(0);
    const keptEntry = await entry(0);
    await a.put(await a.get(own.hash), gone);
    await a.writeEntries(gone, [own]);
    await a.writeEntries(kept, [keptEntry]);
    const summary = await a.put({ role: 'summary', text: nonce(), timestamp: 1 }, gone);
    await a.recordSummary(gone, { fromSeq: 0, toSeq: 1, hash: summary });
    const before = Date.now();
    const listed = await b.listConversations();
    expect(listed.map((c) => c.id)).toEqual(expect.arrayContaining([gone, kept]));
    expect(listed.find((c) => c.id === gone)!.lastWriteAt).toBeLessThanOrEqual(before + 1_000);

    const counts = await b.deleteConversations([gone]);
    expect(counts).toEqual({ conversations: 1, entries: 1, bodies: 2, streams: 0 });
    expect(await a.readLog(gone)).toEqual({ entries: [], summaries: [] });
    expect((await b.listConversations()).map((c) => c.id)).not.toContain(gone);
    await expect(b.get(own.hash)).rejects.toMatchObject({ code: 'not_found' });
    await expect(b.get(summary)).rejects.toMatchObject({ code: 'not_found' });
    expect(await b.get(shared)).toBeDefined();
    expect(await b.readEntries(kept, 0, 1)).toEqual([keptEntry]);
    expect(await b.deleteConversations([gone])).toEqual({ conversations: 0, entries: 0, bodies: 0, streams: 0 });
  });
});
