/**
 * What only the file store does: file names for any conversation id, torn lines, reading only
 * appended lines, and conversations an older file store wrote.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readLogged } from '../../../src/activities/agent/conversation-view';
import { readRunMessages } from '../../../src/client/run-messages';
import { FileContentStore } from '../../../src/store';

describe('file content store', () => {
  let dir: string;
  let store: FileContentStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-test-'));
    store = new FileContentStore(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives any conversation id its own log file inside the store, and lists it by its id', async () => {
    const h = await store.put('x');
    const ids = ['plain-id', '../escape', 'a/b/c', '.hidden', 'x'.repeat(300)];
    for (const id of ids) {
      await store.writeEntries(id, [{ seq: 0, kind: 'user', hash: h }]);
      expect(await store.readEntries(id, 0, 1)).toHaveLength(1);
    }
    expect(fs.readdirSync(path.join(dir, 'logs'))).toHaveLength(5);
    expect(fs.existsSync(path.join(dir, 'escape.jsonl'))).toBe(false);
    expect((await new FileContentStore(dir).listConversations()).map((c) => c.id).sort()).toEqual([...ids].sort());
  });

  it('skips the torn line of a crashed writer and keeps the lines written after it', async () => {
    const h = await store.put('x');
    await store.writeEntries('conv', [{ seq: 0, kind: 'user', hash: h }]);
    const file = path.join(dir, 'logs', 'conv.jsonl');
    fs.appendFileSync(file, '{"seq":1,"kind":"assis');
    const reader = new FileContentStore(dir);
    await expect(reader.readEntries('conv', 0, 2)).rejects.toMatchObject({ code: 'gap' });
    await store.writeEntries('conv', [{ seq: 1, kind: 'assistant', hash: h }]);
    expect(await reader.readEntries('conv', 0, 2)).toEqual([
      { seq: 0, kind: 'user', hash: h },
      { seq: 1, kind: 'assistant', hash: h },
    ]);
  });

  it('reads only what was appended since its last read, and starts over when the log is replaced', async () => {
    const h = await store.put('x');
    await store.writeEntries('conv', [{ seq: 0, kind: 'user', hash: h }]);
    expect(await store.readEntries('conv', 0, 1)).toHaveLength(1);
    const file = path.join(dir, 'logs', 'conv.jsonl');
    // Overwrite the bytes already read (same size, same file): only a reader that reads them again notices.
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace(/"seq":0/, '"seq":9'), { flag: 'r+' });
    await store.writeEntries('conv', [{ seq: 1, kind: 'user', hash: h }]);
    expect(await store.readEntries('conv', 0, 2)).toHaveLength(2);
    await expect(new FileContentStore(dir).readEntries('conv', 0, 2)).rejects.toMatchObject({ code: 'gap' });
    // Replaced by another file (retention deleted it, a run wrote again): read from the start.
    fs.rmSync(file);
    await store.writeEntries('conv', [{ seq: 0, kind: 'assistant', hash: h }]);
    expect(await store.readLog('conv')).toEqual({ entries: [{ seq: 0, kind: 'assistant', hash: h }], summaries: [] });
  });

  it('reads a log written before write orders, each line counting as the oldest write', async () => {
    const call = { type: 'tool_call', id: 'c1', name: 'add', arguments: { a: 1 } };
    const answer = { role: 'assistant', content: [call], provider: 'anthropic', model: 'm', stopReason: 'tool_use' };
    const result = { role: 'tool_result', toolCallId: 'c1', toolName: 'add', content: [], isError: false };
    const hashes = [await store.put({ role: 'user', content: 'add', timestamp: 1 }), await store.put(answer)];
    hashes.push(await store.put(result));
    // The lines of an older file store: no header, no write order.
    const kinds = ['user', 'assistant', 'tool_result'];
    const lines = hashes.map((hash, seq) => `${JSON.stringify({ seq, kind: kinds[seq], hash })}\n`);
    fs.mkdirSync(path.join(dir, 'logs'));
    fs.writeFileSync(path.join(dir, 'logs', 'old.jsonl'), lines.join(''));
    const logged = await readLogged(store, 'old', 0, 3);
    expect(logged.map((l) => [l.kind, l.body.role])).toEqual([
      ['user', 'user'],
      ['assistant', 'assistant'],
      ['tool_result', 'tool_result'],
    ]);
    const transcript = await readRunMessages(store, 'old');
    expect(transcript.map((item) => item.role)).toEqual(['user', 'assistant', 'tool_result']);
    expect(transcript[1]).toMatchObject({ stopReason: 'tool_use', toolCalls: [{ id: 'c1', name: 'add' }] });
  });
});

describe('file content store under concurrent use of one instance', () => {
  it('keeps its read position right when several reads of one log find new lines at once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-race-'));
    try {
      const reader = new FileContentStore(dir);
      const writer = new FileContentStore(dir);
      const h = await writer.put('x');
      let seq = 0;
      const write = (n: number) =>
        writer.writeEntries(
          'conv',
          Array.from({ length: n }, () => ({ seq: seq++, kind: 'tool_result' as const, hash: h })),
        );
      await write(1);
      expect(await reader.readEntries('conv', 0, 1)).toHaveLength(1);
      for (let round = 0; round < 5; round++) {
        await write(4);
        const reads = await Promise.all([0, 1, 2].map(() => reader.readLog('conv')));
        expect(reads.map((r) => r.entries.length)).toEqual([seq, seq, seq]);
        // More than was read at once: a reader that counted those bytes twice now skips lines.
        await write(12);
        expect(await reader.readEntries('conv', 0, seq)).toHaveLength(seq);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
