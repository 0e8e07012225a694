import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BenchResult } from '../../bench/kit';
import { ownChild } from '../kit/children';
import { REPO_ROOT } from '../kit/env';

const run = promisify(execFile);

/**
 * A bench's smoke run as a test: tiny sizes, the bench on its own dev server, checked for well-formed
 * results (not speed). One test file per bench, so that jest runs them side by side.
 */
export function smokeTest(name: string): void {
  describe(`bench/${name}.ts --smoke`, () => {
    it('records well-formed figures', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-smoke-'));
      try {
        const bench = run(
          process.execPath,
          ['-r', './scripts/register-ts.js', `bench/${name}.ts`, '--smoke', '--out', dir],
          {
            cwd: REPO_ROOT,
            env: { ...process.env, BENCH_RESULTS_DIR: '' },
          },
        );
        ownChild(bench.child);
        await bench.catch((error: Error & { stdout?: string }) => {
          // A missed target exits 1 (speed is not judged here); a crash writes no result.
          if (!fs.existsSync(path.join(dir, `${name}.smoke.json`))) throw error;
        });
        const result = JSON.parse(fs.readFileSync(path.join(dir, `${name}.smoke.json`), 'utf8')) as BenchResult;
        expect(result).toMatchObject({ name, smoke: true, machine: { cpus: os.cpus().length } });
        expect(Object.keys(result.figures).length).toBeGreaterThan(0);
        for (const f of Object.values(result.figures)) {
          expect(Number.isFinite(f.value)).toBe(true);
          expect(f.unit).toEqual(expect.any(String));
          expect(f.label).toEqual(expect.any(String));
          if (f.target !== undefined) expect(typeof f.met).toBe('boolean');
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, 180_000);
  });
}
