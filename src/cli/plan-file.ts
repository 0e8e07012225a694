/**
 * `run --plan FILE` and `set-plan ID FILE`: a plan read from a file, either a JSON array of
 * `{ id?, title, done? }` or a Markdown checklist (`- [ ] title`, `- [x] title`, one item a line).
 */
import path from 'node:path';
import type { PlanItem } from '../contracts/run-spec';
import { planOf } from '../policy/plan';
import { UsageError } from './exit-codes';
import { parseJsonText, readTextFile } from './json-file';

/** One checklist line: an optional list mark, an optional `[ ]`/`[x]` box, the title. */
const LINE = /^\s*(?:[-*+]|\d+[.)])?\s*(?:\[([ xX])\]\s*)?(.+?)\s*$/;

/** The items of a Markdown checklist, one a line (blank lines and `#` headings are skipped). */
function checklistItems(text: string): { title: string; done: boolean }[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    .map((line) => {
      const [, box, title] = LINE.exec(line) ?? [];
      return { title: title ?? line.trim(), done: box === 'x' || box === 'X' };
    });
}

/** The plan in `file`; a file that cannot be read or holds no valid plan is one usage error naming it. */
export function readPlanFile(file: string): PlanItem[] {
  const resolved = path.resolve(file);
  const text = readTextFile(resolved, 'plan file');
  const items = text.trimStart().startsWith('[') ? parseJsonText(text, `plan file ${resolved}`) : checklistItems(text);
  const read = planOf(items);
  if ('problems' in read) throw new UsageError(`plan file ${resolved}: ${read.problems.join('; ')}`);
  if (read.plan.length === 0) throw new UsageError(`plan file ${resolved} holds no items`);
  return read.plan;
}
