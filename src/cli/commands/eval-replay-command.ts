/**
 * `durable-agents eval replay --workflow-id ID… | --query Q` (docs/evals.md, Replaying recorded
 * runs): cases from closed recorded runs, their tool results served from the recording, graded as
 * they ran (the observed lane), in a baseline lane (the recorded model: the eval's own noise) and,
 * with `--candidate`, a candidate lane; the gate reads the candidate, its ratios against the baseline.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { readRunMessages } from '../../client/run-messages';
import { hasWorkflowPollers } from '../../client/run-reads';
import {
  checkCases,
  gateFailures,
  junitXml,
  observedOutcome,
  recordedCase,
  reportTable,
  summarize,
  verdictChanges,
  runEval,
  selectRecordedRuns,
  type CaseOptions,
  type EvalCase,
  type EvalReport,
} from '../../evals';
import { connectAgents, type GlobalOptions } from '../cli-context';
import { UsageError } from '../exit-codes';
import { readTextFile } from '../json-file';
import { checkModelSpecs } from '../model-check';
import { collect, positiveInt } from '../option-parsers';
import { printLine, printNotice } from '../terminal-text';
import { plural } from '../watch-output';
import { json } from './agent-deps';
import {
  DEFAULT_GATE,
  asUsage,
  endWithGate,
  gateOf,
  gateView,
  judgeOfFlags,
  openedStore,
  caseSettingsOf,
  withCaseFlags,
  withJudgeFlags,
  type CaseFlags,
  type JudgeFlags,
  type ReportFlags,
} from '../eval-gate';
import { parseJson } from '../../common/json-text';
import { isPlainObject } from '../../common/type-helpers';

interface EvalReplayFlags extends JudgeFlags, CaseFlags, Omit<ReportFlags, 'baseline'> {
  workflowId?: string[];
  query?: string;
  limit: number;
  candidate: string[];
  tolerance: number;
  fromTurn?: number;
}

/** What the candidate changes in each case: its model, its system prompt. */
interface Candidate {
  model?: string;
  systemPrompt?: string;
  options?: CaseOptions;
  /** The task queue of the workers that run its cases (another worker build's). */
  taskQueue?: string;
}

/** What the eval sets itself, which a candidate's config may not. */
const EVAL_OWNED = ['task', 'eval', 'fleet', 'session', 'id', 'continueFrom'];

function candidateFile(spec: string, file: string): string {
  const text = readTextFile(file, `--candidate ${spec}:`);
  if (text.trim() === '') throw new UsageError(`--candidate ${spec}: the file is empty`);
  return text;
}

/** The run options of a `config=FILE` candidate: a JSON object of run options, checked as every case starts. */
function candidateOptions(spec: string, file: string): CaseOptions {
  let options: unknown;
  try {
    options = parseJson(candidateFile(spec, file));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--candidate ${spec}: not JSON (${(err as Error).message})`);
  }
  if (!isPlainObject(options)) throw new UsageError(`--candidate ${spec}: give a JSON object of run options`);
  const owned = Object.keys(options).filter((key) => EVAL_OWNED.includes(key));
  if (owned.length > 0) throw new UsageError(`--candidate ${spec}: the eval sets ${owned.join(', ')} itself`);
  return options as CaseOptions;
}

/** The changes the `--candidate` flags name: `model=…`, `system-prompt=@FILE`, `config=FILE`, `task-queue=QUEUE`. */
function candidateOf(specs: readonly string[]): Candidate | undefined {
  if (specs.length === 0) return undefined;
  const candidate: Candidate = {};
  for (const spec of specs) {
    const [, what, value] = /^(model|system-prompt|config|task-queue)=(.+)$/.exec(spec) ?? [];
    if (what === 'model') candidate.model = value;
    else if (what === 'task-queue') candidate.taskQueue = value;
    else if (what === 'system-prompt' && value.startsWith('@'))
      candidate.systemPrompt = candidateFile(spec, value.slice(1));
    else if (what === 'config') candidate.options = candidateOptions(spec, value.replace(/^@/, ''));
    else
      throw new UsageError(
        `--candidate ${spec}: give model=provider/model, system-prompt=@FILE, config=FILE or task-queue=QUEUE`,
      );
  }
  return candidate;
}

/** The candidate lane's name in the report. */
const candidateName = (c: Candidate): string =>
  [
    c.model,
    c.systemPrompt === undefined ? undefined : 'its system prompt',
    c.options && 'its config',
    c.taskQueue && `the workers of ${c.taskQueue}`,
  ]
    .filter(Boolean)
    .join(', ');

/** A ratio of 0 or more, such as 0.1 for 10 %. */
function toleranceArg(value: string): number {
  const n = Number(value);
  if (!(value.trim() !== '' && Number.isFinite(n) && n >= 0))
    throw new UsageError(`--tolerance ${value}: give a ratio of 0 or more, e.g. 0.1`);
  return n;
}

/** The runs `query` selects, saying how many open runs it left out; none is bad input. */
async function selected(client: Client, query: string, limit: number): Promise<string[]> {
  const { runs, open } = await selectRecordedRuns(client, query, limit).catch(asUsage);
  if (open > 0) printNotice(`--query matched ${plural(open, 'open run')}: replaying only closed runs`);
  if (runs.length === 0) throw new UsageError(`--query ${JSON.stringify(query)} selects no closed agent run`);
  return runs;
}

export function registerEvalReplay(evals: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  withCaseFlags(withJudgeFlags(evals.command('replay')))
    .description(
      'Replay closed recorded runs as eval cases, their tool results served from the recording (a call it does ' +
        'not answer never runs): a baseline lane on the recorded model and a --candidate lane, graded by default ' +
        'against the recording. Exit 0 when the gate holds, 1 when it fails, 2 on bad input (nothing is started).',
    )
    .option('--workflow-id <id...>', 'the recorded runs')
    .option(
      '--query <visibility query>',
      'the recorded runs a visibility query selects: closed agent runs, and the runs of score records ' +
        '(e.g. "DurableAgentScoreName = \'helpful\' AND DurableAgentScore < 0.5")',
    )
    .option('--limit <n>', 'at most this many runs from --query', positiveInt, 20)
    .option(
      '--from-turn <n>',
      "start each case from its recorded conversation up to this turn's tool results (by reference, as fork does)",
      positiveInt,
    )
    .option(
      '--candidate <change>',
      'what the candidate changes (repeat for several): model=provider/model, system-prompt=@FILE, config=FILE, ' +
        'task-queue=QUEUE (its cases run on the workers of that queue: another build)',
      collect,
      [] as string[],
    )
    .option('--tolerance <ratio>', 'how far past the recorded turns and cost a replay may go', toleranceArg, 0.1)
    .option('--json', 'print the lanes as JSON')
    .option('--junit <file>', 'write the gated lane as JUnit XML to this file')
    .option('--gate <clauses>', `what must hold of the candidate lane (default ${DEFAULT_GATE})`)
    .action(async (flags: EvalReplayFlags) => {
      const clauses = gateOf(flags.gate ?? DEFAULT_GATE);
      const change = candidateOf(flags.candidate);
      const judge = judgeOfFlags(flags, env);
      if (change?.model) checkModelSpecs([change.model], env);
      if ((flags.workflowId === undefined) === (flags.query === undefined))
        throw new UsageError('give the recorded runs: --workflow-id ID… or --query QUERY (one of them)');
      const connected = await connectAgents(globals(), env, printNotice);
      const store = await openedStore(env);
      try {
        if (!store) throw new UsageError('the content store cannot be opened: a replay reads the recorded runs there');
        const messages = (id: string) => readRunMessages(store, id);
        const { agents } = connected;
        const cases: EvalCase[] = [];
        const ids = flags.workflowId ?? (await selected(agents.client, flags.query!, flags.limit));
        for (const id of ids)
          cases.push(
            await recordedCase(agents, agents.client, id, messages, {
              tolerance: flags.tolerance,
              ...(flags.fromTurn !== undefined ? { fromTurn: flags.fromTurn } : {}),
            }).catch(asUsage),
          );
        const settings = { ...caseSettingsOf(flags), messages, ...(judge ? { judge } : {}) };
        const { taskQueue, ...changed } = change ?? {};
        const candidates = change
          ? cases.map((c) => ({ ...c, ...changed, options: { ...c.options, ...changed.options } }))
          : undefined;
        const candidateAgents = taskQueue ? agents.onTaskQueue(taskQueue) : agents;
        if (taskQueue && !(await hasWorkflowPollers(agents.client, taskQueue)))
          throw new UsageError(`--candidate task-queue=${taskQueue}: no worker polls that task queue`);
        // Both lanes are checked before either starts.
        await checkCases(agents, cases, settings).catch(asUsage);
        if (candidates) await checkCases(candidateAgents, candidates, settings).catch(asUsage);
        const observing = Promise.all(cases.map((c) => observedOutcome(agents, c, settings)));
        const [baseline, candidate] = await Promise.all([
          runEval(agents, cases, { ...settings, name: `replay baseline of ${cases.length} runs` }),
          ...(candidates
            ? [runEval(candidateAgents, candidates, { ...settings, name: `replay candidate of ${cases.length} runs` })]
            : []),
        ]);
        const observedCases = await observing;
        const observed: EvalReport = { summary: summarize(observedCases), cases: observedCases };
        const gated = candidate ?? baseline;
        if (flags.junit)
          fs.writeFileSync(
            flags.junit,
            junitXml(gated, `durable-agents eval replay (${candidate ? 'candidate' : 'baseline'})`),
          );
        const failures = gateFailures(clauses, gated.summary, baseline.summary);
        if (flags.json)
          printLine(json({ observed, baseline, ...(candidate ? { candidate } : {}), gate: gateView(failures) }));
        else {
          printLine(`observed (the recordings as they ran):\n${reportTable(observed)}`);
          printLine(`\nbaseline (the recorded models):\n${reportTable(baseline)}`);
          if (candidate) {
            const changed = verdictChanges(baseline, candidate, ['baseline', 'candidate']);
            printLine(`\ncandidate (${candidateName(change!)}):\n${reportTable(candidate)}`);
            printLine(
              changed.length ? `\ncases that changed:\n${changed.join('\n')}` : '\nno case changed its verdict',
            );
          }
        }
        endWithGate(failures);
      } finally {
        await store?.close();
        await connected.close();
      }
    });
}
