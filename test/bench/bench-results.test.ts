import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { figure, writeBenchResult, type BenchResult } from '../../bench/kit';
import { BEGIN, END, FIGURES_PAGE, readResults, renderTable, withTable } from '../../scripts/bench-table';
import { REPO_ROOT } from '../kit/env';

const run = promisify(execFile);

describe('recorded benchmark results', () => {
  it("docs/performance.md's figures table is what bench:table makes of the committed results", () => {
    const page = fs.readFileSync(path.join(REPO_ROOT, FIGURES_PAGE), 'utf8');
    expect(withTable(page, readResults(path.join(REPO_ROOT, 'bench', 'results')))).toBe(page);
  });

  it('writes one JSON file per benchmark and renders each figure with its baseline, ratio and target', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-results-'));
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const args = { smoke: false, untuned: false, outDir: dir, sizes: [] };
      writeBenchResult(
        'recovery',
        {
          resumeMs: figure(812.34, 'ms', 'resume after a worker crash', { baseline: 400, target: '<= 1000' }),
          lost: figure(2, 'runs', 'runs lost', { target: '== 0' }),
        },
        { description: 'a sample', args },
      );
      const results = readResults(dir);
      expect(results.map((r) => r.name)).toEqual(['recovery']);
      expect(results[0].figures.resumeMs).toEqual({
        value: 812.3,
        unit: 'ms',
        label: 'resume after a worker crash',
        baseline: 400,
        ratio: 2.031,
        target: '<= 1000',
        met: true,
      });
      const table = renderTable(results);
      expect(table).toContain('| `recovery` | resume after a worker crash | 812.3 ms | 400 ms (2.031×) | <= 1000 ✓ |');
      expect(table).toContain('| `recovery` | runs lost | 2 runs |  | == 0 ✗ not met |');
      expect(withTable(`a\n${BEGIN}\nold\n${END}\nb`, results)).toBe(`a\n${BEGIN}\n${table}\n${END}\nb`);
    } finally {
      log.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a page without the bench block in one line', () => {
    expect(() => withTable('no block here', [])).toThrow(/docs\/performance.md has no bench block/);
  });
});

// Smoke runs only: tiny sizes, each bench on its own dev server, checked for well-formed results (not speed).
const SMOKED = [
  'turn-overhead',
  'agent-history',
  'tokens',
  'concurrency',
  'recovery',
  'fleet',
  'subagents',
  'tool-calls',
];
describe.each(SMOKED)('bench/%s.ts --smoke', (name) => {
  it('records well-formed figures', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-smoke-'));
    try {
      await run(process.execPath, ['-r', './scripts/register-ts.js', `bench/${name}.ts`, '--smoke', '--out', dir], {
        cwd: REPO_ROOT,
        env: { ...process.env, BENCH_RESULTS_DIR: '' },
      }).catch((error: Error & { stdout?: string }) => {
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
