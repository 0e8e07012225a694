import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolSelection } from '../../../src/contracts/tool-catalog';
import { createToolRegistry } from '../../../src/tools';

describe('file tools jailed to the workspace root', () => {
  let base: string;
  let ws: string;
  let outside: string;
  let evil: string;
  const registry = createToolRegistry({ builtins: { fetch: false, webSearch: false } });
  const selection = (): ToolSelection => ({ workspaceRoot: ws });
  const run = (name: string, args: Record<string, unknown>, sel: ToolSelection = selection()) =>
    registry.execute({ runId: 'r', toolCallId: 'c', name, args, selection: sel });

  beforeAll(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'da-files-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    evil = path.join(base, 'ws_evil');
    for (const d of [ws, outside, evil, path.join(ws, 'src')]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(ws, 'src', 'a.txt'), 'hello inside\nsecond line\n');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET');
    fs.writeFileSync(path.join(evil, 'secret.txt'), 'EVIL SECRET');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link-to-secret'));
    fs.symlinkSync(outside, path.join(ws, 'linked-dir'));
  });
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  it('reads, writes, lists and searches inside the root', async () => {
    expect(await run('fs_read', { path: 'src/a.txt' })).toMatchObject({
      isError: false,
      content: 'hello inside\nsecond line\n',
    });
    expect(await run('fs_write', { path: 'new/dir/b.txt', content: 'made' })).toMatchObject({
      isError: false,
      content: 'Wrote 4 bytes to new/dir/b.txt.',
    });
    expect(fs.readFileSync(path.join(ws, 'new/dir/b.txt'), 'utf8')).toBe('made');
    const listing = (await run('fs_list', { path: '.', recursive: true })).content.split('\n');
    expect(listing).toEqual(expect.arrayContaining(['src/', 'src/a.txt', 'new/dir/b.txt', 'link-to-secret (symlink)']));
    expect((await run('fs_search', { query: 'SECOND' })).content).toBe('src/a.txt:2: second line');
  });

  const reads: [string, string][] = [
    ['a relative path up and out', '../outside/secret.txt'],
    ['a deep relative path', 'src/../../outside/secret.txt'],
    ['an absolute path outside', '/etc/passwd'],
    ['a relative path into a sibling with the root as prefix', '../ws_evil/secret.txt'],
    ['a percent-encoded traversal', '..%2foutside%2fsecret.txt'],
    ['a double-encoded traversal', '%252e%252e/outside/secret.txt'],
    ['a symlink pointing out', 'link-to-secret'],
    ['a path through a symlinked directory', 'linked-dir/secret.txt'],
    ['a NUL byte', 'src/a.txt\u0000.png'],
  ];

  it.each(reads)('refuses to read %s', async (_label, p) => {
    const out = await run('fs_read', { path: p });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/outside the workspace|percent-encoding|NUL byte/);
    expect(out.content).not.toMatch(/SECRET|root:/);
  });

  it('refuses an absolute sibling path that shares the root as a string prefix', async () => {
    expect(evil.startsWith(ws)).toBe(true);
    const out = await run('fs_read', { path: path.join(evil, 'secret.txt') });
    expect(out).toMatchObject({ isError: true });
    expect(out.content).toMatch(/outside the workspace/);
  });

  const writes: [string, string][] = [
    ['up and out', '../outside/pwned.txt'],
    ['into a sibling with the root as prefix', '../ws_evil/pwned.txt'],
    ['through a symlinked directory', 'linked-dir/pwned.txt'],
    ['through a symlinked directory into a new subfolder', 'linked-dir/sub/pwned.txt'],
    ['over a symlink to an outside file', 'link-to-secret'],
    ['with a NUL byte', 'pwned.txt\u0000'],
  ];

  it.each(writes)('refuses to write %s and changes nothing outside', async (_label, p) => {
    const out = await run('fs_write', { path: p, content: 'PWNED' });
    expect(out.isError).toBe(true);
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    expect(fs.readdirSync(evil)).toEqual(['secret.txt']);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
  });

  it('refuses to write a hard link to a file outside the root, which keeps its content', async () => {
    const elsewhere = fs.mkdtempSync(path.join(base, 'elsewhere-'));
    const target = path.join(elsewhere, 'config.txt');
    fs.writeFileSync(target, 'OUTSIDE CONTENT');
    fs.linkSync(target, path.join(ws, 'hard-link'));
    const out = await run('fs_write', { path: 'hard-link', content: 'PWNED' });
    expect(out).toMatchObject({ isError: true });
    expect(out.content).toBe(
      'Tool "fs_write" failed: Path "hard-link" is a hard link (the file has 2 names, maybe outside the ' +
        'workspace): it is not written.',
    );
    expect(fs.readFileSync(target, 'utf8')).toBe('OUTSIDE CONTENT');
    expect(fs.readdirSync(elsewhere)).toEqual(['config.txt']);
  });

  it('writes a new file in place of the old one, keeping its permissions and leaving no temporary file', async () => {
    const file = path.join(ws, 'src', 'replaced.txt');
    fs.writeFileSync(file, 'old');
    fs.chmodSync(file, 0o600);
    const before = fs.statSync(file);
    expect(await run('fs_write', { path: 'src/replaced.txt', content: 'new' })).toMatchObject({ isError: false });
    const after = fs.statSync(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    // Another inode: the old file was replaced by a rename, never opened for writing.
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.join(ws, 'src')).sort()).toEqual(['a.txt', 'replaced.txt']);
  });

  it('refuses to list or search outside the root', async () => {
    expect((await run('fs_list', { path: '..' })).isError).toBe(true);
    expect((await run('fs_list', { path: 'linked-dir' })).isError).toBe(true);
    expect((await run('fs_search', { query: 'SECRET', path: '../outside' })).isError).toBe(true);
    expect((await run('fs_search', { query: 'SECRET' })).content).toBe('No matches for "SECRET".');
  });

  it('refuses every path when the run has no workspace root', async () => {
    for (const name of ['fs_read', 'fs_list', 'fs_search']) {
      const out = await run(name, name === 'fs_search' ? { query: 'x' } : { path: 'src/a.txt' }, {});
      expect(out).toMatchObject({ isError: true });
      expect(out.content).toMatch(/no workspace root/);
    }
    expect((await run('fs_write', { path: 'x.txt', content: 'x' }, {})).content).toMatch(/no workspace root/);
  });
});
