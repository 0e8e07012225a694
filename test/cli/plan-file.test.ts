import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readPlanFile } from '../../src/cli/plan-file';

const file = (name: string, text: string): string => {
  const p = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-file-')), name);
  fs.writeFileSync(p, text);
  return p;
};

describe('run --plan FILE', () => {
  it('reads a Markdown checklist, one item a line, headings and blank lines skipped', () => {
    expect(readPlanFile(file('plan.md', '# Trip\n\n- [ ] book the train\n- [x] pick dates\n3. pack\n'))).toEqual([
      { id: '1', title: 'book the train', done: false },
      { id: '2', title: 'pick dates', done: true },
      { id: '3', title: 'pack', done: false },
    ]);
  });

  it('reads a JSON array of items', () => {
    expect(readPlanFile(file('plan.json', '[{"id":"a","title":"one","done":true}]'))).toEqual([
      { id: 'a', title: 'one', done: true },
    ]);
  });

  it('refuses a missing file, bad JSON, an empty plan and a bad item, each in one line naming the file', () => {
    expect(() => readPlanFile('/nonexistent/plan.md')).toThrow(
      /plan file \/nonexistent\/plan.md cannot be read: ENOENT/,
    );
    expect(() => readPlanFile(file('bad.json', '[{"title": }]'))).toThrow(/bad.json is not valid JSON/);
    expect(() => readPlanFile(file('empty.md', '# nothing\n'))).toThrow(/empty.md holds no items/);
    expect(() => readPlanFile(file('ids.json', '[{"id":"a","title":"x"},{"id":"a","title":"y"}]'))).toThrow(
      /ids.json: the plan names the item id "a" twice/,
    );
  });
});
