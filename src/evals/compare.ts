/**
 * Two eval reports side by side (docs/evals.md, Comparing eval runs): the totals of each with their
 * ratios, and the cases whose verdict changed, matched by name, with the later one's first failing
 * grader. `eval replay` shows its baseline and candidate lanes so, and `eval compare` two saved reports.
 */
import { summaryLine } from './report';
import type { EvalReport } from './suite';

/** The cases whose verdict differs from `before` to `after`, each in a line; cases in one report only, too. */
export function verdictChanges(before: EvalReport, after: EvalReport, names = ['before', 'after']): string[] {
  const earlier = new Map(before.cases.map((c) => [c.name, c]));
  const later = new Set(after.cases.map((c) => c.name));
  const verdict = (pass: boolean): string => (pass ? 'pass' : 'FAIL');
  const lines = after.cases.flatMap((c) => {
    const was = earlier.get(c.name);
    if (!was) return [`  ${c.name}: only in the ${names[1]} (${verdict(c.pass)})`];
    if (was.pass === c.pass) return [];
    const why = c.failed ? `${c.failed.name}: ${c.failed.message ?? 'failed'}` : 'passes now';
    return [`  ${c.name}: ${names[0]} ${verdict(was.pass)}, ${names[1]} ${verdict(c.pass)} (${why})`];
  });
  const gone = before.cases.filter((c) => !later.has(c.name));
  return [...lines, ...gone.map((c) => `  ${c.name}: only in the ${names[0]} (${verdict(c.pass)})`)];
}

/** `after` against `before`: both totals, the ratios of cost, tokens, turns and time, the changed cases. */
export function comparison(before: EvalReport, after: EvalReport): string {
  const [a, b] = [before.summary, after.summary];
  const ratio = (x: number, y: number): string => (x === 0 ? (y === 0 ? '1.00x' : 'n/a') : `${(y / x).toFixed(2)}x`);
  const changed = verdictChanges(before, after);
  return [
    `before: ${summaryLine(a)}`,
    `after:  ${summaryLine(b)}`,
    `pass ${(b.pass - a.pass >= 0 ? '+' : '') + (Math.round((b.pass - a.pass) * 1000) / 10).toFixed(1)} points, ` +
      `cost ${ratio(a.costUsd, b.costUsd)}, tokens ${ratio(a.tokens, b.tokens)}, turns ${ratio(a.turns, b.turns)}, ` +
      `time a case ${ratio(a.latencyMs, b.latencyMs)}, drift ${b.drift - a.drift >= 0 ? '+' : ''}${b.drift - a.drift}`,
    changed.length ? `cases that changed:\n${changed.join('\n')}` : 'no case changed its verdict',
  ].join('\n');
}
