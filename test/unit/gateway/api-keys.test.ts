import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiKeys, isLoopback, presentedKey, readApiKeys } from '../../../src/gateway/api-keys';

const sha = (key: string) => crypto.createHash('sha256').update(key).digest('hex');

function keyFile(content: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'keys-')), 'keys.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('API keys', () => {
  it('finds a key by its hash and gives its tenant and agents', () => {
    const keys = new ApiKeys([{ name: 'app', sha256: sha('s3cret'), tenant: 'acme', agents: ['reader'] }]);
    const ok = keys.authenticate('s3cret');
    expect(ok).toMatchObject({ ok: true, caller: { tenant: 'acme', keyName: 'app' } });
    expect(ok.ok && ok.may('reader')).toBe(true);
    expect(ok.ok && ok.may('writer')).toBe(false);
    expect(keys.authenticate('s3cret!')).toMatchObject({ ok: false, status: 401 });
    expect(keys.authenticate(undefined)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a key over its requests a minute and lets it in again as its budget refills', () => {
    let now = 0;
    const keys = new ApiKeys([{ name: 'app', sha256: sha('k'), requestsPerMinute: 2 }], () => now);
    expect(keys.authenticate('k').ok).toBe(true);
    expect(keys.authenticate('k').ok).toBe(true);
    const over = keys.authenticate('k');
    expect(over).toMatchObject({ ok: false, status: 429 });
    expect(JSON.stringify(over)).not.toContain('"k"');
    now += 30_000;
    expect(keys.authenticate('k').ok).toBe(true);
    expect(keys.authenticate('k').ok).toBe(false);
  });

  it('reads a key file and refuses one that holds a key instead of its hash, naming the entry', () => {
    expect(readApiKeys(keyFile({ keys: [{ name: 'a', sha256: sha('x').toUpperCase(), agents: ['*'] }] }))).toEqual([
      { name: 'a', sha256: sha('x'), agents: ['*'] },
    ]);
    expect(() => readApiKeys(keyFile({ keys: [{ name: 'a', sha256: 'sk-live-123' }] }))).toThrow(
      /key 1 \("a"\): sha256 must be/,
    );
    expect(() => readApiKeys(keyFile({ keys: [] }))).toThrow(/must hold/);
    expect(() => readApiKeys(keyFile('{'))).toThrow(/cannot be read as JSON/);
    expect(() =>
      readApiKeys(
        keyFile({
          keys: [
            { name: 'a', sha256: sha('1') },
            { name: 'a', sha256: sha('2') },
          ],
        }),
      ),
    ).toThrow(/used twice/);
  });

  it('takes the key from a bearer header, else x-api-key, and knows loopback addresses', () => {
    const headers = (h: Record<string, string>) => (name: string) => h[name];
    expect(presentedKey(headers({ authorization: 'Bearer abc' }))).toBe('abc');
    expect(presentedKey(headers({ 'x-api-key': 'xyz' }))).toBe('xyz');
    expect(presentedKey(headers({}))).toBeUndefined();
    expect(['127.0.0.1', '127.1.2.3', '::1', 'localhost'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', '::'].some(isLoopback)).toBe(false);
  });
});
