/**
 * How the file store wakes a run's token readers: a reader in the writer's own process at the
 * append itself, whichever store instance it reads through (a watcher in an application that embeds
 * its worker), and a reader of another process's writes by the file-system event.
 */
import { execFileSync } from 'node:child_process';
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

  it("are woken by another process's append, through the file-system event", async () => {
    const id = `run-${crypto.randomUUID()}`;
    await writer.appendTokens(id, [piece('first')]);
    let woken = 0;
    const stop = reader.subscribeTokens(id, () => (woken += 1));
    try {
      const file = path.join(dir, 'streams', fileNameOf(id));
      const line = `\n${JSON.stringify(piece('from elsewhere'))}\n`;
      const sent = Date.now();
      execFileSync(process.execPath, [
        '-e',
        `require('fs').appendFileSync(${JSON.stringify(file)}, ${JSON.stringify(line)})`,
      ]);
      while (woken === 0 && Date.now() - sent < 2_000) await new Promise((resolve) => setTimeout(resolve, 5));
      // Within the slower poll's second: the event woke it.
      expect(woken).toBeGreaterThan(0);
      expect(Date.now() - sent).toBeLessThan(900);
      expect((await reader.readTokens(id, 0)).records.map((r) => (r.type === 'piece' ? r.text : r.type))).toEqual([
        'first',
        'from elsewhere',
      ]);
    } finally {
      stop();
    }
  });
});
