/** An eval's progress (docs/evals.md) in one line: its cases done, running, pending, not run, passed so far. */
import type { EvalProgress } from '../contracts/eval-workflow';

export function progressLine(progress: EvalProgress): string {
  const count = (status: string) => progress.cases.filter((c) => c.status === status).length;
  const passed = progress.cases.filter((c) => c.outcome?.pass).length;
  const notRun = count('not_run');
  return (
    `${progress.name}: ${progress.status}, ${count('done')}/${progress.cases.length} cases done ` +
    `(${passed} passed), ${count('running')} running, ${count('pending')} pending` +
    (notRun > 0 ? `, ${notRun} not run` : '')
  );
}
