/**
 * What the eval commands share (docs/evals.md): the gate and its verdict, saved reports, the
 * content store the calls are read from, how cases run and the judge's flags, bad input as a usage
 * error.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { errorText } from '../common/error-text';
import {
  DEFAULT_PARALLEL,
  EvalInputError,
  gateFailures,
  junitXml,
  needsBaseline,
  parseGate,
  reportTable,
  type EvalReport,
  type EvalSummary,
  type GateClause,
  type JudgeSettings,
} from '../evals';
import { openStore, type ContentStore } from '../store';
import { storeConfig } from '../worker/worker-config';
import { EXIT, UsageError } from './exit-codes';
import { readTextFile } from './json-file';
import { checkModelSpecs } from './model-check';
import { printError, printLine } from './terminal-text';
import { parseJson } from '../common/json-text';
import { definedFields } from '../common/type-helpers';
import type { FleetSpec } from '../contracts/run-spec';
import { positiveInt, priorityArg, tenantArg } from './option-parsers';
import { json } from './commands/agent-deps';

/** Without `--gate`, every case must pass. */
export const DEFAULT_GATE = 'pass>=1';

/** The gate's clauses, or a usage error. */
export function gateOf(spec: string): GateClause[] {
  const read = parseGate(spec);
  if ('problem' in read) throw new UsageError(`--gate: ${read.problem}`);
  return read.clauses;
}

/** The report a saved `--json` file holds: `eval run`'s, or `eval replay`'s candidate lane (else its baseline). */
export function savedReport(file: string, flag = ''): EvalReport {
  if (!fs.existsSync(file)) throw new UsageError(`${flag}${file}: no such file or directory`);
  try {
    const saved = parseJson(fs.readFileSync(file, 'utf8')) as Partial<EvalReport> & {
      candidate?: EvalReport;
      baseline?: EvalReport;
    };
    const report = saved.cases && saved.summary ? (saved as EvalReport) : (saved.candidate ?? saved.baseline);
    if (!Array.isArray(report?.cases) || typeof report.summary?.cases !== 'number')
      throw new Error('it is not the JSON report of `eval run` or `eval replay`');
    return report;
  } catch (err) {
    throw new UsageError(`${flag}${file}${err instanceof SyntaxError ? ' is not valid JSON' : ''}: ${errorText(err)}`);
  }
}

/** The summary of an earlier report (`--baseline FILE`), for the gate's ratios. */
export function baselineOf(file: string | undefined, clauses: GateClause[]): EvalSummary | undefined {
  if (file) return savedReport(file, '--baseline ').summary;
  if (needsBaseline(clauses)) throw new UsageError('--gate compares with a baseline (NUMBERx): give --baseline FILE');
  return undefined;
}

/** The gate's verdict as the JSON report shows it. */
export const gateView = (failures: string[]) => ({ holds: failures.length === 0, failures });

/** Says which clauses failed and sets the exit code: 0 the gate holds, 1 it fails. */
export function endWithGate(failures: string[]): void {
  for (const failure of failures) printError(`gate failed: ${failure}`);
  process.exitCode = failures.length === 0 ? EXIT.ok : EXIT.failed;
}

/** How an eval's report is shown and held to its gate. */
export interface ReportFlags {
  json?: boolean;
  junit?: string;
  gate?: string;
  baseline?: string;
}

/** Writes `--junit`, prints the report (a table, or `--json` with the gate's verdict) and ends with its gate. */
export function endWithReport(report: EvalReport, flags: ReportFlags, extra: object = {}): void {
  const clauses = gateOf(flags.gate ?? DEFAULT_GATE);
  const failures = gateFailures(clauses, report.summary, baselineOf(flags.baseline, clauses));
  if (flags.junit) fs.writeFileSync(flags.junit, junitXml(report));
  printLine(flags.json ? json({ ...extra, ...report, gate: gateView(failures) }) : reportTable(report));
  endWithGate(failures);
}

/** An eval's bad input as the CLI's usage error (exit 2). */
export const asUsage = (err: unknown): never => {
  throw err instanceof EvalInputError ? new UsageError(err.message) : err;
};

/** The store the workers write, for the calls' whole arguments; undefined when it cannot be opened. */
export const openedStore = (env: NodeJS.ProcessEnv): Promise<ContentStore | undefined> =>
  openStore(storeConfig(env)).catch(() => undefined);

/** How the cases of `eval run` and `eval replay` run. */
export interface CaseFlags {
  parallel: number;
  tenant: string;
  priority?: number;
}

/** Adds the flags of how cases run to an eval command. */
export const withCaseFlags = (command: Command): Command =>
  command
    .option('--parallel <n>', 'cases running at a time', positiveInt, DEFAULT_PARALLEL)
    .option('--tenant <name>', 'the tenant the runs work for (its budget)', tenantArg, 'evals')
    .option('--priority <n>', "1 (first) to 5 (last): the order of the runs' calls in a backlog", priorityArg);

/** How the cases run, as the flags say: so many at a time, in the fleet the flags name. */
export const caseSettingsOf = ({ parallel, tenant, priority }: CaseFlags): { parallel: number; fleet: FleetSpec } => ({
  parallel,
  fleet: definedFields({ tenant, priority }),
});

/** The judge's flags of `eval run` and `eval replay`. */
export interface JudgeFlags {
  judge?: string;
  rubric?: string;
  judgeToolCalls?: boolean;
}

/** Adds the judge's flags to an eval command. */
export const withJudgeFlags = (command: Command): Command =>
  command
    .option(
      '--judge <provider/model>',
      "a model that grades each case's answer against a rubric (its verdict is a grader)",
    )
    .option('--rubric <text|@file>', "the judge's rubric for cases without their own (judge.rubric)")
    .option('--judge-tool-calls', "show the judge the run's tool calls too");

/** The judge the flags name, its rubric given as text or read from `@FILE`; none without `--judge`. */
export function judgeOfFlags(flags: JudgeFlags, env: NodeJS.ProcessEnv): JudgeSettings | undefined {
  if (!flags.judge) {
    if (flags.rubric !== undefined || flags.judgeToolCalls)
      throw new UsageError('--rubric and --judge-tool-calls need --judge provider/model');
    return undefined;
  }
  checkModelSpecs([flags.judge], env);
  const rubric = flags.rubric?.startsWith('@') ? readTextFile(flags.rubric.slice(1), '--rubric') : flags.rubric;
  if (rubric !== undefined && rubric.trim() === '') throw new UsageError('--rubric: the rubric is empty');
  return { model: flags.judge, ...(rubric ? { rubric } : {}), ...(flags.judgeToolCalls ? { toolCalls: true } : {}) };
}
