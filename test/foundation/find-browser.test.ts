import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser } from '../kit/browser';
import { findBrowser } from '../kit/find-browser';

function executable(dir: string, name: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  return file;
}

describe('finding a browser for the browser tests', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-find-browser-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('takes CHROMIUM_PATH first, and reports one that is not an executable instead of passing it over', () => {
    const mine = executable(dir, 'my-chromium');
    const fixed = executable(dir, 'chromium');
    expect(findBrowser({ CHROMIUM_PATH: mine }, [fixed])).toEqual({ path: mine });
    expect(findBrowser({ CHROMIUM_PATH: path.join(dir, 'missing') }, [fixed])).toEqual({
      problem: `CHROMIUM_PATH=${path.join(dir, 'missing')} is not an executable file: point it at a Chromium or Chrome binary`,
    });
  });

  it('then the fixed path, then chromium, chromium-browser or google-chrome on PATH', () => {
    const onPath = fs.mkdtempSync(path.join(dir, 'bin-'));
    const chrome = executable(onPath, 'google-chrome');
    expect(findBrowser({ PATH: `/nonexistent${path.delimiter}${onPath}` }, [])).toEqual({ path: chrome });
    const fixed = executable(dir, 'debian-chromium');
    expect(findBrowser({ PATH: onPath }, [fixed])).toEqual({ path: fixed });
  });

  it('says how to get one when there is none, and the browser suites fail with that line', async () => {
    const none = findBrowser({ PATH: '' }, []);
    expect(none).toEqual({
      problem: expect.stringMatching(/^no Chromium or Chrome found: install .*apt-get install chromium/),
    });
    expect('problem' in none && none.problem).toContain('DURABLE_AGENTS_SKIP_BROWSER=1');

    const saved = process.env.CHROMIUM_PATH;
    try {
      process.env.CHROMIUM_PATH = path.join(dir, 'missing');
      await expect(launchBrowser()).rejects.toThrow(/^Browser tests: CHROMIUM_PATH=.* is not an executable file/);
      // An executable that is no browser: the launch fails with its exit code and its last line on stderr.
      process.env.CHROMIUM_PATH = path.join(dir, 'broken-browser');
      fs.writeFileSync(
        process.env.CHROMIUM_PATH,
        '#!/bin/sh\necho "libnss3.so: cannot open shared object file" >&2\nexit 127\n',
        {
          mode: 0o755,
        },
      );
      await expect(launchBrowser()).rejects.toThrow(
        `Browser tests: ${process.env.CHROMIUM_PATH} did not start: exit code 127: libnss3.so: cannot open shared object file`,
      );
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
  });
});
