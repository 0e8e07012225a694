import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { figure, writeBenchResult } from '../../../bench/kit';
import { BEGIN, END, FIGURES_PAGE, readResults, renderTable, withTable } from '../../../scripts/bench-table';
import { REPO_ROOT } from '../../kit/env';

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
