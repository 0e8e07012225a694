/**
 * `durable-agents eval run [files…]` (docs/evals.md): starts an eval of the cases on the workers (a
 * workflow), waits for it and prints its report (a table, `--json`, `--junit FILE`) and applies the
 * gate: exit 0 when it holds, 1 when it fails, 2 on bad input (a malformed case, an unknown model, a
 * bad gate), with nothing started; `--detach` prints the eval's id. `eval compare` puts two saved
 * reports side by side; `eval status`, `eval report` and `eval cancel` read an eval by its id.
 */
import type { Command } from 'commander';
import { whileOpen } from '../../common/while-open';
import {
  comparison,
  gateFailures,
  progressLine,
  readCaseFiles,
  startEval,
  verdictChanges,
  waitForEval,
} from '../../evals';
import { connectAgents, type GlobalOptions } from '../cli-context';
import {
  DEFAULT_GATE,
  asUsage,
  baselineOf,
  endWithGate,
  gateOf,
  gateView,
  judgeOfFlags,
  savedReport,
  caseSettingsOf,
  withCaseFlags,
  withJudgeFlags,
  type CaseFlags,
  type JudgeFlags,
  type ReportFlags,
} from '../eval-gate';
import { checkModelSpecs } from '../model-check';
import { printLine, printNotice } from '../terminal-text';
import { json } from './agent-deps';
import { registerEvalReplay } from './eval-replay-command';
import { endWithEval, registerEvalStatus } from './eval-status-command';

interface EvalRunFlags extends JudgeFlags, CaseFlags, ReportFlags {
  model?: string;
  detach?: boolean;
}

export function registerEvalCommands(program: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  const evals = program.command('eval').description('Evals: run cases with served tool results and grade them.');
  withCaseFlags(withJudgeFlags(evals.command('run')))
    .description(
      'Run eval cases (JSON files, or modules exporting defineEvalCase cases; default: the files of evals/) and ' +
        'grade them. Exit 0 when the gate holds, 1 when it fails, 2 on bad input (nothing is started).',
    )
    .argument('[files...]', 'case files or directories of them')
    .option('--model <spec>', 'the model of cases that name none (provider/model)')
    .option('--json', 'print the report as JSON')
    .option('--junit <file>', 'write the report as JUnit XML to this file')
    .option('--gate <clauses>', `what must hold, e.g. 'pass>=0.95,cost<=1.1x,drift==0' (default ${DEFAULT_GATE})`)
    .option('--baseline <file>', 'an earlier `eval run --json` report, for the gate ratios (NUMBERx)')
    .option('--detach', 'start the eval and print its id (read it with eval status and eval report)')
    .action(async (files: string[], flags: EvalRunFlags) => {
      baselineOf(flags.baseline, gateOf(flags.gate ?? DEFAULT_GATE));
      const judge = judgeOfFlags(flags, env);
      const cases = await readCaseFiles(files).catch(asUsage);
      checkModelSpecs(
        [...(flags.model ? [flags.model] : []), ...cases.flatMap((c) => (c.model ? [c.model] : []))],
        env,
      );
      await whileOpen(connectAgents(globals(), env, printNotice), async ({ agents }) => {
        const id = await startEval(agents, cases, {
          ...caseSettingsOf(flags),
          ...(flags.model ? { model: flags.model } : {}),
          ...(judge ? { judge } : {}),
        }).catch(asUsage);
        if (flags.detach) return printLine(id);
        const watching = process.stderr.isTTY && !flags.json;
        if (watching) printNotice(`eval ${id}: ${cases.length} cases`);
        const progress = await waitForEval(agents, id, watching ? (p) => printNotice(progressLine(p)) : undefined);
        await endWithEval(agents, id, progress, flags, env, cases);
      });
    });
  evals
    .command('compare')
    .description(
      'Compare two saved eval reports (`eval run --json` or `eval replay --json`, its candidate lane, else its ' +
        'baseline): both totals, their ratios and the cases whose verdict changed. With --gate, exit 1 when the ' +
        'later report fails it (its ratios against the earlier).',
    )
    .argument('<before>', 'the earlier report (JSON)')
    .argument('<after>', 'the later report (JSON)')
    .option('--gate <clauses>', "what must hold of the later report, e.g. 'pass>=0.95,cost<=1.1x'")
    .option('--json', 'print the comparison as JSON')
    .action((beforeFile: string, afterFile: string, flags: { gate?: string; json?: boolean }) => {
      const clauses = flags.gate === undefined ? [] : gateOf(flags.gate);
      const [before, after] = [savedReport(beforeFile), savedReport(afterFile)];
      const failures = gateFailures(clauses, after.summary, before.summary);
      if (flags.json)
        printLine(
          json({
            before: before.summary,
            after: after.summary,
            changed: verdictChanges(before, after).map((l) => l.trim()),
            gate: gateView(failures),
          }),
        );
      else printLine(comparison(before, after));
      endWithGate(failures);
    });
  registerEvalReplay(evals, globals, env);
  registerEvalStatus(evals, globals, env);
}
