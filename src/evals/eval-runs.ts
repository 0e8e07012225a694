/**
 * An eval on the server (docs/evals.md): started as a workflow (`evalWorkflow`) whose children are
 * the cases' runs, read back (its progress while it runs, its result once it has ended) and made
 * into a report. The graders written as data run on the workers; a case's grader functions exist
 * only in the process that read it, which grades the case again, the same way, with all of them.
 * A case's judge travels in the eval's input and is asked by whoever reports the eval, once it has
 * ended (docs/evals.md, The judge).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import crypto from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentClient } from '../client';
import { workflowInput } from '../client/run-reads';
import { errorText } from '../common/error-text';
import { definedFields } from '../common/type-helpers';
import {
  EVAL_WORKFLOW,
  evalProgressQuery,
  type CaseOutcome,
  type EvalCaseInput,
  type EvalGraderData,
  type EvalProgress,
  type EvalWorkflowInput,
} from '../contracts/eval-workflow';
import type { CaseRun, EvalCase } from './eval-case';
import { caseJudge, judgeRun, judgedOutcome, type JudgedCase } from './judge';
import { caseRunOf, outcomeOf } from './run-case';
import { DEFAULT_PARALLEL, EvalInputError, checkCases, summarize, type EvalReport, type EvalSettings } from './suite';

export interface EvalStart extends EvalSettings {
  /** What the eval is called (its summary in the Web UI); default the first case's name and the count. */
  name?: string;
}

/** A new eval's id: `eval-`, its name's words, 12 random hex digits. */
function newEvalId(name: string): string {
  const words = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `eval-${words ? `${words}-` : ''}${crypto.randomBytes(6).toString('hex')}`;
}

/** A case's run's id: the eval's, then the case's place, so each case has one run. */
const caseRunId = (evalId: string, i: number): string => `${evalId}/case-${i + 1}`;

/** Checks the cases as {@link checkCases} does, then starts the eval; its id. */
export async function startEval(agents: AgentClient, cases: readonly EvalCase[], settings: EvalStart): Promise<string> {
  const name = settings.name ?? (cases.length === 1 ? cases[0].name : `${cases[0]?.name} and ${cases.length - 1} more`);
  const id = newEvalId(name);
  const starts = await checkCases(agents, cases, settings, (i) => caseRunId(id, i));
  const input: EvalWorkflowInput = {
    name,
    parallel: settings.parallel ?? DEFAULT_PARALLEL,
    cases: cases.map((c, i) => ({
      name: c.name,
      start: starts[i],
      graders: c.graders.filter((g) => g.type !== 'check') as EvalGraderData[],
      ...definedFields({ judge: caseJudge(c, settings.judge) }),
    })),
  };
  // Each case carries its run's start (a replayed case its recorded tool results) in the eval's input.
  await agents.checkPayload(
    input,
    `the eval's input (${cases.length} case${cases.length === 1 ? '' : 's'} with their runs' starts)`,
    'run the cases as several smaller evals',
  );
  await agents.client.workflow.start(EVAL_WORKFLOW, {
    workflowId: id,
    taskQueue: agents.taskQueue,
    args: [input],
    staticSummary: `eval ${name}: ${cases.length} case${cases.length === 1 ? '' : 's'}`,
    staticDetails: [`**eval** ${name}`, '', ...cases.map((c, i) => `- ${c.name}: \`${caseRunId(id, i)}\``)].join('\n'),
  });
  return id;
}

/** The eval `id`'s handle; an id that names no eval is bad input. */
async function evalHandle(agents: AgentClient, id: string) {
  const handle = agents.client.workflow.getHandle(id);
  const described = await handle.describe().catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError) throw new EvalInputError(`no eval "${id}"`);
    throw err;
  });
  if (described.type !== EVAL_WORKFLOW) throw new EvalInputError(`"${id}" is not an eval (it is a ${described.type})`);
  return { handle, running: described.status.name === 'RUNNING' };
}

/** Where the eval `id` is: asked of a worker while it runs, its result once it has ended. */
export async function evalProgress(agents: AgentClient, id: string): Promise<EvalProgress> {
  const { handle, running } = await evalHandle(agents, id);
  if (!running) return handle.result() as Promise<EvalProgress>;
  return handle.query(evalProgressQuery).catch((err: unknown) => {
    throw new Error(`the eval "${id}" runs, but no worker answered for it: ${errorText(err)}`);
  });
}

/** Cancels the eval `id`: the cases still running are cancelled, those not started do not run. */
export async function cancelEval(agents: AgentClient, id: string): Promise<void> {
  const { handle } = await evalHandle(agents, id);
  await handle.cancel();
}

/** Checks the cases, runs them as an eval on the workers and waits for its report. */
export async function runEval(
  agents: AgentClient,
  cases: readonly EvalCase[],
  settings: EvalStart,
): Promise<EvalReport> {
  const id = await startEval(agents, cases, settings);
  return evalReport(agents, id, await waitForEval(agents, id), cases, settings);
}

/** Waits for the eval `id` to end; `onProgress` is told where it is every `everyMs` until then. */
export async function waitForEval(
  agents: AgentClient,
  id: string,
  onProgress?: (progress: EvalProgress) => void,
  everyMs = 2000,
): Promise<EvalProgress> {
  const { handle } = await evalHandle(agents, id);
  let ended = false;
  const result = (handle.result() as Promise<EvalProgress>).finally(() => (ended = true));
  if (onProgress)
    void (async () => {
      while (!ended) {
        await sleep(everyMs);
        if (!ended) await handle.query(evalProgressQuery).then(onProgress, () => undefined);
      }
    })();
  return result;
}

/**
 * The report of the eval `id`'s cases done so far. A case read here (`cases`) with grader functions
 * is graded again with every grader, as the workers grade (`settings.messages` reads its
 * conversation); a case with a judge in the eval's input is judged, at most `settings.parallel` at a
 * time.
 */
export async function evalReport(
  agents: AgentClient,
  id: string,
  progress: EvalProgress,
  cases: readonly EvalCase[] = [],
  settings: Pick<EvalSettings, 'messages' | 'parallel'> = {},
): Promise<EvalReport> {
  const reads = { state: (run: string) => agents.state(run), messages: settings.messages };
  const input = await workflowInput<EvalWorkflowInput>(agents.client, id);
  const given = new Map((input?.cases ?? []).map((c) => [c.start.workflowId, c]));
  const report = async (at: EvalProgress['cases'][number], outcome: CaseOutcome): Promise<CaseOutcome> => {
    const own = cases.find((c) => c.name === at.name);
    const regrades = own?.graders.some((g) => g.type === 'check') ?? false;
    const judge = given.get(at.id)?.judge;
    if (!regrades && !judge) return outcome;
    // A run that closed without a result was failed as it closed: there is nothing to grade or judge.
    const result = await agents.result(at.id).catch(() => undefined);
    if (!result) return outcome;
    const run = await caseRunOf(reads, regrades ? own!.graders : [], at.id, result, outcome.latencyMs);
    const graded = regrades ? await outcomeOf(own!, at.id, run) : outcome;
    if (!judge) return graded;
    return judgedOutcome(graded, await judgeRun(agents, caseAsked(given.get(at.id)!, at.id, run), judge));
  };
  const done = progress.cases.flatMap((at) => (at.outcome ? [{ at, outcome: at.outcome }] : []));
  const outcomes: CaseOutcome[] = new Array(done.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < done.length; i = next++) outcomes[i] = await report(done[i].at, done[i].outcome);
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(settings.parallel ?? DEFAULT_PARALLEL, done.length)) }, lane),
  );
  return { summary: summarize(outcomes), cases: outcomes };
}

/** What the judge of a case is asked about: the case's task and fleet, as its run started. */
const caseAsked = ({ start }: EvalCaseInput, id: string, run: CaseRun): JudgedCase => {
  const { task, fleet } = start.args[0].config;
  return { id, task, run, ...(fleet ? { fleet } : {}) };
};
