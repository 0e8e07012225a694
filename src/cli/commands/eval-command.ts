/**
 * `durable-agents eval run [files…]` (docs/evals.md): runs eval cases against the workers, prints a
 * report (a table, `--json`, `--junit FILE`) and applies the gate: exit 0 when it holds, 1 when it
 * fails, 2 on bad input (a malformed case, an unknown model, a bad gate), with nothing started.
 * `eval compare` puts two saved reports side by side.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { comparison, gateFailures, junitXml, readCaseFiles, reportTable, runEval, verdictChanges } from '../../evals';
import { readRunMessages } from '../../client/run-messages';
import { connectAgents, type GlobalOptions } from '../cli-context';
import {
  DEFAULT_GATE,
  asUsage,
  baselineOf,
  endWithGate,
  gateOf,
  gateView,
  openedStore,
  savedReport,
} from '../eval-gate';
import { checkModelSpecs } from '../model-check';
import { positiveInt, tenantArg } from '../option-parsers';
import { printLine, printNotice } from '../terminal-text';
import { registerEvalReplay } from './eval-replay-command';

interface EvalRunFlags {
  parallel: number;
  model?: string;
  tenant: string;
  json?: boolean;
  junit?: string;
  gate?: string;
  baseline?: string;
}

export function registerEvalCommands(
  program: Command,
  globals: () => GlobalOptions = () => ({}),
  env: NodeJS.ProcessEnv = process.env,
): void {
  const evals = program.command('eval').description('Evals: run cases with served tool results and grade them.');
  evals
    .command('run')
    .description(
      'Run eval cases (JSON files, or modules exporting defineEvalCase cases; default: the files of evals/) and ' +
        'grade them. Exit 0 when the gate holds, 1 when it fails, 2 on bad input (nothing is started).',
    )
    .argument('[files...]', 'case files or directories of them')
    .option('--parallel <n>', 'cases running at a time', positiveInt, 4)
    .option('--model <spec>', 'the model of cases that name none (provider/model)')
    .option('--tenant <name>', 'the tenant the runs work for (its budget)', tenantArg, 'evals')
    .option('--json', 'print the report as JSON')
    .option('--junit <file>', 'write the report as JUnit XML to this file')
    .option('--gate <clauses>', `what must hold, e.g. 'pass>=0.95,cost<=1.1x,drift==0' (default ${DEFAULT_GATE})`)
    .option('--baseline <file>', 'an earlier `eval run --json` report, for the gate ratios (NUMBERx)')
    .action(async (files: string[], flags: EvalRunFlags) => {
      const clauses = gateOf(flags.gate ?? DEFAULT_GATE);
      const baseline = baselineOf(flags.baseline, clauses);
      const cases = await readCaseFiles(files).catch(asUsage);
      checkModelSpecs(
        [...(flags.model ? [flags.model] : []), ...cases.flatMap((c) => (c.model ? [c.model] : []))],
        env,
      );
      const connected = await connectAgents(globals(), env, printNotice);
      const store = await openedStore(env);
      try {
        const report = await runEval(connected.agents, cases, {
          parallel: flags.parallel,
          tenant: flags.tenant,
          ...(flags.model ? { model: flags.model } : {}),
          ...(store ? { messages: (id: string) => readRunMessages(store, id) } : {}),
        }).catch(asUsage);
        if (flags.junit) fs.writeFileSync(flags.junit, junitXml(report));
        const failures = gateFailures(clauses, report.summary, baseline);
        printLine(flags.json ? JSON.stringify({ ...report, gate: gateView(failures) }, null, 2) : reportTable(report));
        endWithGate(failures);
      } finally {
        await store?.close();
        await connected.close();
      }
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
          JSON.stringify(
            {
              before: before.summary,
              after: after.summary,
              changed: verdictChanges(before, after).map((l) => l.trim()),
              gate: gateView(failures),
            },
            null,
            2,
          ),
        );
      else printLine(comparison(before, after));
      endWithGate(failures);
    });
  registerEvalReplay(evals, globals, env);
}
