import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileContentStore, StoreError } from '../../src/store';

describe('file content store', () => {
  let dir: string;
  let store: FileContentStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-test-'));
    store = new FileContentStore(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('addresses bodies by content: equal bodies share one hash, key order does not matter', async () => {
    const a = await store.put({ role: 'user', content: 'hi', timestamp: 1 });
    const b = await store.put({ timestamp: 1, content: 'hi', role: 'user' });
    const c = await store.put({ role: 'user', content: 'ho', timestamp: 1 });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(await store.get(a)).toEqual({ role: 'user', content: 'hi', timestamp: 1 });
  });

  it('reports a missing body, a bad hash and a gap in the log as typed errors', async () => {
    await expect(store.get('0'.repeat(64))).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.get('../../etc/passwd')).rejects.toMatchObject({ code: 'bad_input' });
    const h = await store.put('x');
    await store.writeEntries('conv', [
      { seq: 0, kind: 'user', hash: h },
      { seq: 2, kind: 'user', hash: h },
    ]);
    await expect(store.readEntries('conv', 0, 3)).rejects.toThrow(StoreError);
    await expect(store.readEntries('conv', 0, 3)).rejects.toMatchObject({
      code: 'gap',
      message: expect.stringContaining('position 1'),
    });
    await expect(store.readEntries('other', 0, 1)).rejects.toMatchObject({ code: 'gap' });
  });

  it('keeps entries written concurrently and out of order, a rewrite at a position wins', async () => {
    const hashes = await Promise.all(Array.from({ length: 20 }, (_, i) => store.put({ n: i })));
    await Promise.all(
      hashes.map((hash, seq) => store.writeEntries('conv', [{ seq: 19 - seq, kind: 'tool_result', hash }])),
    );
    await store.writeEntries('conv', [{ seq: 5, kind: 'assistant', hash: hashes[0] }]);
    const entries = await store.readEntries('conv', 0, 20);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(entries[5]).toEqual({ seq: 5, kind: 'assistant', hash: hashes[0] });
    expect(await store.readEntries('conv', 18, 20)).toHaveLength(2);
  });

  it('gives any conversation id its own log file inside the store', async () => {
    const h = await store.put('x');
    for (const id of ['plain-id', '../escape', 'a/b/c', '.hidden', 'x'.repeat(300)]) {
      await store.writeEntries(id, [{ seq: 0, kind: 'user', hash: h }]);
      expect(await store.readEntries(id, 0, 1)).toHaveLength(1);
    }
    expect(fs.readdirSync(path.join(dir, 'logs'))).toHaveLength(5);
    expect(fs.existsSync(path.join(dir, 'escape.jsonl'))).toBe(false);
  });
});
