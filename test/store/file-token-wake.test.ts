/**
 * How the file store wakes a run's token readers: a reader in the writer's own process at the
 * append itself, whichever store instance it reads through (a watcher in an application that embeds
 * its worker), and a reader of a write no store of its process made (another process's) by the
 * file-system event.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TokenRecord } from '../../src/contracts/token-stream';
import { FileContentStore } from '../../src/store';
import { fileNameOf } from '../../src/store/file-names';

const piece = (text: string): TokenRecord => ({
  seq: 3,
  scheduledAt: 1_700_000_000_000,
  attempt: 1,
  model: 'anthropic/claude-sonnet-4-6',
  type: 'piece',
  kind: 'text',
  text,
  at: Date.now(),
});

describe("the file store's token readers", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'token-wake-'));
  const writer = new FileContentStore(dir);
  const reader = new FileContentStore(dir);
  afterAll(async () => {
    await writer.close();
    await reader.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('are woken by an append in their own process before any file-system event can be', async () => {
    const id = `run-${crypto.randomUUID()}`;
    await writer.appendTokens(id, [piece('first')]);
    let woken = 0;
    const stop = reader.subscribeTokens(id, () => (woken += 1));
    try {
      await writer.appendTokens(id, [piece('second')]);
      // Only promise callbacks ran since the append: a file-system event's callback has not yet.
      expect(woken).toBe(1);
    } finally {
      stop();
    }
  });

  it('are no longer woken once their store is closed, by an append or by its slower poll', async () => {
    const id = `run-${crypto.randomUUID()}`;
    const closing = new FileContentStore(dir);
    let woken = 0;
    jest.useFakeTimers();
    try {
      closing.subscribeTokens(id, () => (woken += 1));
      await closing.close();
      await writer.appendTokens(id, [piece('after the close')]);
      jest.advanceTimersByTime(60_000);
    } finally {
      jest.useRealTimers();
    }
    expect(woken).toBe(0);
  });

  it("are woken by a write this process's stores did not make, through the file-system event", async () => {
    const id = `run-${crypto.randomUUID()}`;
    await writer.appendTokens(id, [piece('first')]);
    // The slower poll beside the event cannot fire: only the event can wake the reader.
    jest.useFakeTimers();
    let stop = (): void => undefined;
    try {
      const woken = new Promise<void>((resolve) => (stop = reader.subscribeTokens(id, resolve)));
      // Appended as another process appends: straight to the file, past every store of this one.
      const file = path.join(dir, 'streams', fileNameOf(id));
      fs.appendFileSync(file, `\n${JSON.stringify(piece('from elsewhere'))}\n`);
      await woken;
    } finally {
      stop();
      jest.useRealTimers();
    }
    expect((await reader.readTokens(id, 0)).records.map((r) => (r.type === 'piece' ? r.text : r.type))).toEqual([
      'first',
      'from elsewhere',
    ]);
  });
});
