/**
 * An eval run's report (docs/evals.md): a table for the terminal, JSON, and JUnit XML for CI (one
 * test case per eval case, a failure per failing case with every failing grader).
 */
import type { CaseOutcome } from './run-case';
import type { EvalReport, EvalSummary } from './suite';
import { usd } from '../common/decimal';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const count = (n: number): string => n.toLocaleString('en-US');
const percent = (ratio: number): string => `${(Math.round(ratio * 1000) / 10).toFixed(1)} %`;

/** The summary in one line. */
export function summaryLine(s: EvalSummary): string {
  // A saved report from before the judge has no judge figures.
  const judge = s.judgeTokens
    ? `; the judge: mean score ${s.judgeScore.toFixed(2)}, cost ${usd(s.judgeCostUsd)}, ${count(s.judgeTokens)} tokens`
    : '';
  return (
    `${s.passed}/${s.cases} cases passed (${percent(s.pass)}), cost ${usd(s.costUsd)}, ${count(s.tokens)} tokens, ` +
    `${s.turns} turns, ${seconds(s.latencyMs)} a case, drift ${s.drift}${judge}`
  );
}

/** Rows padded to their columns' widths. */
function columns(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
}

/** The first failing grader of a case, as the report names it. */
const firstFailure = (c: CaseOutcome): string =>
  c.failed ? `${c.failed.name}: ${c.failed.message ?? 'failed'}` : 'passed';

/** The report as the terminal shows it: the table of cases, the summary, the failing cases. */
export function reportTable(report: EvalReport): string {
  // The judge's column (its score and cost) only when a case was judged.
  const judged = report.cases.some((c) => c.judge);
  const rows = [
    ['case', 'result', 'stop', 'turns', 'tokens', 'cost', 'latency', 'drift', ...(judged ? ['judge'] : [])],
    ...report.cases.map((c) => [
      c.name,
      c.pass ? 'pass' : 'FAIL',
      c.stopReason,
      String(c.turns),
      count(c.tokens),
      usd(c.costUsd),
      seconds(c.latencyMs),
      String(c.drift),
      ...(judged ? [c.judge ? `${c.judge.score?.toFixed(2) ?? '-'} (${usd(c.judge.costUsd)})` : '-'] : []),
    ]),
  ];
  const failing = report.cases.filter((c) => !c.pass);
  return [
    ...columns(rows),
    '',
    summaryLine(report.summary),
    ...(failing.length > 0
      ? ['failing cases:', ...failing.map((c) => `  ${c.name} (${c.id}): ${firstFailure(c)}`)]
      : []),
  ].join('\n');
}

/** Text as XML character data or an attribute value: escaped, without the characters XML 1.0 forbids. */
function xml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/** The report as JUnit XML: a suite of the eval's cases, each failing case with its failing graders. */
export function junitXml(report: EvalReport, suite = 'durable-agents eval'): string {
  const { summary } = report;
  const failures = summary.cases - summary.passed;
  const total = report.cases.reduce((n, c) => n + c.latencyMs, 0) / 1000;
  const testcase = (c: CaseOutcome): string => {
    const attrs = `name="${xml(c.name)}" classname="${xml(suite)}" time="${(c.latencyMs / 1000).toFixed(3)}"`;
    const line = `run ${c.id}: ${c.stopReason}, ${c.turns} turns, ${usd(c.costUsd)}, drift ${c.drift}`;
    const props = `<system-out>${xml(line)}</system-out>`;
    if (c.pass) return `    <testcase ${attrs}>${props}</testcase>`;
    const failed = c.graders.filter((g) => !g.pass);
    const body = failed.map((g) => `${g.name}: ${g.message ?? 'failed'}`).join('\n');
    return [
      `    <testcase ${attrs}>`,
      `      <failure message="${xml(firstFailure(c))}" type="grader">${xml(body)}</failure>`,
      `      ${props}`,
      '    </testcase>',
    ].join('\n');
  };
  const counts = `tests="${summary.cases}" failures="${failures}" errors="0" time="${total.toFixed(3)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(suite)}" ${counts}>`,
    `  <testsuite name="${xml(suite)}" ${counts} skipped="0">`,
    ...report.cases.map(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
