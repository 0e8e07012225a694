/**
 * An eval's cases checked and their starts prepared before any starts (docs/evals.md), and the
 * totals of their outcomes.
 */
import type { AgentClient, PreparedStart } from '../client';
import { errorText } from '../common/error-text';
import type { EvalCase } from './eval-case';
import { caseJudge, judgeProblem, judgeStart } from './judge';
import { caseStart, type CaseOutcome, type CaseSettings } from './run-case';

/** Input an eval cannot run with (a malformed case, a model no one knows): one line, nothing started. */
export class EvalInputError extends Error {
  override name = 'EvalInputError';
}

/** The totals of an eval run, what its gate reads. */
export interface EvalSummary {
  cases: number;
  passed: number;
  /** Passed cases over all, 0 to 1. */
  pass: number;
  costUsd: number;
  tokens: number;
  turns: number;
  /** Mean time of a case from its start to its result, in ms. */
  latencyMs: number;
  drift: number;
  /** What the judge cost, apart from the cases' own cost and tokens (0 without a judge). */
  judgeCostUsd: number;
  judgeTokens: number;
  /** The judge's mean score over the cases it scored, 0 to 1 (0 without a judge). */
  judgeScore: number;
}

export interface EvalReport {
  summary: EvalSummary;
  cases: CaseOutcome[];
}

/** Cases an eval runs at a time unless told otherwise. */
export const DEFAULT_PARALLEL = 4;

export interface EvalSettings extends CaseSettings {
  /** Cases running at a time; default {@link DEFAULT_PARALLEL}. */
  parallel?: number;
}

/** The totals of the cases' outcomes. */
export function summarize(cases: readonly CaseOutcome[]): EvalSummary {
  const sum = (pick: (c: CaseOutcome) => number) => cases.reduce((n, c) => n + pick(c), 0);
  const passed = cases.filter((c) => c.pass).length;
  const scores = cases.flatMap((c) => (c.judge?.score === undefined ? [] : [c.judge.score]));
  return {
    cases: cases.length,
    passed,
    pass: cases.length === 0 ? 0 : passed / cases.length,
    costUsd: sum((c) => c.costUsd),
    tokens: sum((c) => c.tokens),
    turns: sum((c) => c.turns),
    latencyMs: cases.length === 0 ? 0 : Math.round(sum((c) => c.latencyMs) / cases.length),
    drift: sum((c) => c.drift),
    judgeCostUsd: sum((c) => c.judge?.costUsd ?? 0),
    judgeTokens: sum((c) => c.judge?.tokens ?? 0),
    judgeScore: scores.length === 0 ? 0 : scores.reduce((n, s) => n + s, 0) / scores.length,
  };
}

/**
 * Refuses cases an eval cannot run: duplicate names, a case without a model, options the client
 * refuses. Returns each case's checked start, its run's id `idOf(i)` when given.
 */
export async function checkCases(
  agents: AgentClient,
  cases: readonly EvalCase[],
  settings: CaseSettings,
  idOf?: (i: number) => string,
): Promise<PreparedStart[]> {
  if (cases.length === 0) throw new EvalInputError('no eval cases to run');
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.name)) throw new EvalInputError(`two cases are named "${c.name}"`);
    seen.add(c.name);
    if (!c.model && !settings.model) throw new EvalInputError(`case "${c.name}" names no model: give --model`);
    const problem = judgeProblem(c, settings.judge);
    if (problem) throw new EvalInputError(problem);
  }
  // Every start (and every judge's) is checked at once; the first case refused (in the cases' order) is named.
  const refusal = (c: EvalCase, what: string) => (err: unknown) => `case "${c.name}": ${what}${errorText(err)}`;
  const prepared = await Promise.all(
    cases.map(async (c, i) => {
      const judge = caseJudge(c, settings.judge);
      const judging = judge && agents.prepareStart(judgeStart(c.task, judge, undefined, settings.fleet));
      const [start, judged] = await Promise.all([
        agents.prepareStart({ ...caseStart(c, settings), ...(idOf ? { id: idOf(i) } : {}) }).catch(refusal(c, '')),
        judging?.then(() => undefined, refusal(c, 'its judge: ')),
      ]);
      return typeof start === 'string' ? start : (judged ?? start);
    }),
  );
  const refused = prepared.find((p) => typeof p === 'string');
  if (refused) throw new EvalInputError(refused);
  return prepared as PreparedStart[];
}
