/**
 * Runs' token streams in both content stores: appended by one store, read by another over the same
 * data (as a worker writes and a watcher on another process reads), woken on append, collected
 * with the run, and read whole while two writers append to one run at once.
 */
import crypto from 'node:crypto';
import type { StoredCallRecord, StoredTokenRecord, TokenRecord } from '../../src/contracts/token-stream';
import { followTokens } from '../../src/client';
import type { ContentStore } from '../../src/store';
import { STORE_BACKENDS } from '../kit/store-backends';

const run = (): string => `run-${crypto.randomUUID()}`;
const call = { seq: 3, scheduledAt: 1_700_000_000_000, attempt: 1, model: 'anthropic/claude-sonnet-4-6' };
const piece = (text: string, extra: Partial<typeof call> = {}): TokenRecord => ({
  ...call,
  ...extra,
  type: 'piece',
  kind: 'text',
  text,
  at: Date.now(),
});
const texts = (records: StoredTokenRecord[]): string[] => records.flatMap((r) => (r.type === 'piece' ? [r.text] : []));

describe.each(STORE_BACKENDS)('token streams in the $name', (backend) => {
  let a: ContentStore;
  let b: ContentStore;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, cleanup } = await backend.open());
  });
  afterAll(async () => cleanup());

  it('reads what another store appended, in order, from any cursor on', async () => {
    const id = run();
    expect(await b.readTokens(id, 0)).toEqual({ records: [], cursor: 0 });
    await a.appendTokens(id, [{ ...call, type: 'start', at: 1 }, piece('Hel'), piece('lo')]);
    await a.appendTokens(id, [piece(' there'), { ...call, type: 'end', outcome: 'answered', at: 2 }]);
    const all = await b.readTokens(id, 0);
    expect(all.records.map((r) => r.type)).toEqual(['start', 'piece', 'piece', 'piece', 'end']);
    expect(texts(all.records)).toEqual(['Hel', 'lo', ' there']);
    expect(all.cursor).toBe(all.records[4].cursor);
    const rest = await b.readTokens(id, all.records[1].cursor);
    expect(texts(rest.records)).toEqual(['lo', ' there']);
    expect(await b.readTokens(id, all.cursor)).toEqual({ records: [], cursor: all.cursor });
  });

  it('wakes a subscriber when another store appends', async () => {
    const id = run();
    let woken = 0;
    const stop = b.subscribeTokens(id, () => (woken += 1));
    try {
      // Subscribed before the stream exists: its first record wakes the subscriber too.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const before = woken;
      const sent = Date.now();
      await a.appendTokens(id, [piece('wake')]);
      while (woken === before && Date.now() - sent < 1_000) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(woken).toBeGreaterThan(before);
      // Within a poll interval of neither backend: an event woke it.
      expect(Date.now() - sent).toBeLessThan(400);
    } finally {
      stop();
    }
  });

  it('refuses a malformed record in one line and writes nothing', async () => {
    const id = run();
    const bad = { ...call, type: 'piece', kind: 'speech', text: 'x', at: 1 } as unknown as TokenRecord;
    await expect(a.appendTokens(id, [piece('fine'), bad])).rejects.toMatchObject({
      code: 'bad_input',
      message: expect.stringMatching(/^bad token record .*"speech"/),
    });
    await expect(a.readTokens(id, -1)).rejects.toMatchObject({ code: 'bad_input' });
    expect((await b.readTokens(id, 0)).records).toEqual([]);
  });

  it('keeps the events a call follows beside its records, and refuses entries with a gap in their offsets', async () => {
    const id = run();
    const turnStart = { type: 'turn_start', model: call.model, at: 5, turn: 2 } as const;
    const turnEnd = {
      type: 'turn_end',
      model: call.model,
      provider: 'anthropic',
      stopReason: 'tool_use',
      toolCalls: 1,
      usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 },
      at: 4,
      turn: 1,
    } as const;
    const ahead: TokenRecord = {
      type: 'events',
      after: 9,
      entries: [
        { offset: 7, event: turnEnd },
        { offset: 8, event: turnStart },
      ],
      at: 6,
    };
    await a.appendTokens(id, [ahead, { ...call, type: 'start', after: 9, at: 7 }]);
    const { records } = await b.readTokens(id, 0);
    expect(records.map(({ cursor: _, ...r }) => r)).toEqual([ahead, { ...call, type: 'start', after: 9, at: 7 }]);
    const gap = { ...ahead, entries: [ahead.entries[0], { offset: 9, event: turnStart }] } as TokenRecord;
    await expect(a.appendTokens(id, [gap])).rejects.toMatchObject({ code: 'bad_input' });
    // A reader of the calls' records alone does not see it.
    const controller = new AbortController();
    const calls: StoredCallRecord[] = [];
    for await (const record of followTokens(b, id, { signal: controller.signal })) {
      calls.push(record);
      controller.abort();
    }
    expect(calls.map((r) => r.type)).toEqual(['start']);
  });

  it("keeps a quick tool call's events beside the pieces, and refuses one that names no call", async () => {
    const id = run();
    const started = { type: 'tool_start', toolCallId: 'c1', tool: 'peek', args: '{"key":"x"}' } as const;
    const ran = { type: 'tool_execution', toolCallId: 'c1', tool: 'peek', durationMs: 4, isError: false } as const;
    await a.appendTokens(id, [
      { ...call, type: 'tool', event: started, at: 1 },
      { ...call, type: 'tool', event: ran, at: 2 },
    ]);
    expect((await b.readTokens(id, 0)).records.map((r) => (r.type === 'tool' ? r.event : r.type))).toEqual([
      started,
      ran,
    ]);
    const bad = { ...call, type: 'tool', event: { type: 'tool_start', tool: 'peek', args: '' }, at: 3 };
    await expect(a.appendTokens(id, [bad as unknown as TokenRecord])).rejects.toMatchObject({ code: 'bad_input' });
  });

  it("is listed and collected with its run's conversation", async () => {
    const [gone, kept, alone] = [run(), run(), run()];
    for (const id of [gone, kept, alone]) await a.appendTokens(id, [piece(id)]);
    await a.writeEntries(gone, [{ seq: 0, kind: 'user', hash: await a.put({ task: gone }, gone) }]);
    // A run whose stream is all the store has of it is listed too, so gc finds it.
    expect((await b.listConversations()).map((c) => c.id)).toEqual(expect.arrayContaining([gone, kept, alone]));
    expect(await b.deleteConversations([gone, alone])).toMatchObject({ conversations: 1, streams: 2 });
    expect((await a.readTokens(gone, 0)).records).toEqual([]);
    expect((await a.readTokens(alone, 0)).records).toEqual([]);
    expect(texts((await a.readTokens(kept, 0)).records)).toEqual([kept]);
    expect((await b.listConversations()).map((c) => c.id)).not.toContain(alone);
  });

  it('gives a follower every record while two writers append to one run at once', async () => {
    const id = run();
    const controller = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const record of followTokens(b, id, { signal: controller.signal }))
        if (record.type === 'piece') seen.push(record.text);
    })();
    const writer = (store: ContentStore, name: string, attempt: number) =>
      (async () => {
        for (let i = 0; i < 40; i++) await store.appendTokens(id, [piece(`${name}${i}`, { seq: i, attempt })]);
      })();
    await Promise.all([writer(a, 'a', 1), writer(b, 'b', 1)]);
    const deadline = Date.now() + 5_000;
    while (seen.length < 80 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await following;
    expect(seen.slice().sort()).toEqual(
      [...Array.from({ length: 40 }, (_, i) => `a${i}`), ...Array.from({ length: 40 }, (_, i) => `b${i}`)].sort(),
    );
  });

  it("leaves out a replaced call's records once the newer call was read", async () => {
    const id = run();
    await a.appendTokens(id, [{ ...call, type: 'start', at: 1 }, piece('dead ')]);
    await a.appendTokens(id, [{ ...call, attempt: 2, type: 'start', at: 2 }, piece('Alive', { attempt: 2 })]);
    // The dead attempt's worker writes on, late.
    await a.appendTokens(id, [piece('zombie')]);
    await a.appendTokens(id, [piece(' answer.', { attempt: 2 })]);
    const controller = new AbortController();
    const records: StoredCallRecord[] = [];
    for await (const record of followTokens(b, id, { signal: controller.signal })) {
      records.push(record);
      if (records.length === 5) controller.abort();
    }
    expect(records.map((r) => `${r.attempt}:${r.type === 'piece' ? r.text : r.type}`)).toEqual([
      '1:start',
      '1:dead ',
      '2:start',
      '2:Alive',
      '2: answer.',
    ]);
  });
});
