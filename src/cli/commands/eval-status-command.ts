/**
 * `durable-agents eval status|report|cancel ID` (docs/evals.md): an eval started by `eval run` or
 * `eval replay` read back from the server: where it is while it runs, its report (table, `--json`,
 * `--junit`, `--gate`) once it has ended, and its cancellation. An id that names no eval: one line,
 * exit 2.
 */
import type { Command } from 'commander';
import { json } from './agent-deps';
import { whileOpen } from '../../common/while-open';
import { readRunMessages } from '../../client/run-messages';
import { cancelEval, evalProgress, evalReport, progressLine, type EvalCase, type EvalProgress } from '../../evals';
import type { AgentClient } from '../../client';
import { connectAgents, type GlobalOptions } from '../cli-context';
import { EXIT, UsageError } from '../exit-codes';
import { printError, printLine, printNotice } from '../terminal-text';
import { DEFAULT_GATE, asUsage, endWithReport, openedStore, type ReportFlags } from '../eval-gate';

/** Each case of a running eval: its status and, once done, its verdict. */
function caseLines(progress: EvalProgress): string[] {
  return progress.cases.map((c) => {
    const verdict = c.outcome ? (c.outcome.pass ? 'pass' : `FAIL (${c.outcome.failed?.name ?? 'failed'})`) : '';
    return `  ${c.name}  ${c.status.replace('_', ' ')}  ${c.id}${verdict ? `  ${verdict}` : ''}`;
  });
}

/**
 * The report of an ended (or running) eval's cases done, held to the gate; a cancelled eval fails
 * (exit 1), whatever its cases did. `cases`: the cases read here, whose grader functions grade again.
 */
export async function endWithEval(
  agents: AgentClient,
  id: string,
  progress: EvalProgress,
  flags: ReportFlags,
  env: NodeJS.ProcessEnv,
  cases: readonly EvalCase[] = [],
): Promise<void> {
  const store = await openedStore(env);
  try {
    const messages = store && ((run: string) => readRunMessages(store, run));
    const report = await evalReport(agents, id, progress, cases, messages ? { messages } : {});
    if (!flags.json) printLine(`${id}: ${progressLine(progress)}`);
    endWithReport(report, flags, { id, status: progress.status });
  } finally {
    await store?.close();
  }
  if (progress.status === 'cancelled') {
    printError(`the eval ${id} was cancelled`);
    process.exitCode = EXIT.failed;
  }
}

export function registerEvalStatus(evals: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  const withEval = (action: (agents: AgentClient) => Promise<void>) =>
    whileOpen(connectAgents(globals(), env, printNotice), ({ agents }) => action(agents));
  const reportOptions = (command: Command) =>
    command
      .option('--json', 'print the report as JSON')
      .option('--junit <file>', 'write the report as JUnit XML to this file')
      .option('--gate <clauses>', `what must hold (default ${DEFAULT_GATE})`)
      .option('--baseline <file>', 'an earlier `eval run --json` report, for the gate ratios (NUMBERx)');
  reportOptions(
    evals
      .command('status')
      .description(
        "Where an eval is: its cases done, running and pending, and how many passed so far (a case's grader " +
          'functions run only in the `eval run` that read them); an ended eval prints its report, as `eval report`.',
      )
      .argument('<id>', 'the eval (as `eval run --detach` printed it)'),
  ).action((id: string, flags: ReportFlags) =>
    withEval(async (agents) => {
      const progress = await evalProgress(agents, id).catch(asUsage);
      if (progress.status !== 'running') return endWithEval(agents, id, progress, flags, env);
      printLine(
        flags.json
          ? json({ id, ...progress })
          : [`${id}: ${progressLine(progress)}`, ...caseLines(progress)].join('\n'),
      );
    }),
  );
  reportOptions(
    evals
      .command('report')
      .description(
        "An eval's report: the table of its cases done, `--json`, `--junit FILE`, and its gate (exit 0 when it " +
          'holds, 1 when it fails or the eval was cancelled, 2 on bad input).',
      )
      .argument('<id>', 'the eval'),
  ).action((id: string, flags: ReportFlags) =>
    withEval(async (agents) => endWithEval(agents, id, await evalProgress(agents, id).catch(asUsage), flags, env)),
  );
  evals
    .command('cancel')
    .description('Cancel an eval: its running cases are cancelled (each ends as cancelled), the others do not run.')
    .argument('<id>', 'the eval')
    .action((id: string) =>
      withEval(async (agents) => {
        const progress = await evalProgress(agents, id).catch(asUsage);
        if (progress.status !== 'running') throw new UsageError(`the eval ${id} has ended (${progress.status})`);
        await cancelEval(agents, id);
        printLine(`cancelling the eval ${id}: its running cases are cancelled`);
      }),
    );
}
