/**
 * The model-graded judge of an eval (docs/evals.md, The judge): a model reads the case's task, the
 * run's final answer (and, when asked, its tool calls) and a rubric, and answers with a verdict
 * (pass, a score from 0 to 1, a reason). It is a run of its own on the workers, through their
 * configured providers, with no tools and one turn, started by whoever reports the eval once the
 * case has ended; its tokens and cost are the judge's, not the case's. Its id comes from the case's
 * run and what it is asked, so reporting an eval again reads the verdict given rather than asking
 * again. An answer that does not parse is a failed grader saying why.
 */
import { z } from 'zod';
import type { AgentClient, StartAgentOptions } from '../client';
import { canonicalJson } from '../common/canonical-json';
import { errorText } from '../common/error-text';
import { hashString } from '../common/hash';
import type { CaseJudgeInput, CaseOutcome, JudgeOutcome } from '../contracts/eval-workflow';
import { totalTokens } from '../contracts/message-model';
import type { FleetSpec } from '../contracts/run-spec';
import { extract } from '../policy/extract-answer';
import type { CaseRun, EvalCase } from './eval-case';
import type { GraderOutcome } from './graders';

export type { CaseJudgeInput, JudgeOutcome } from '../contracts/eval-workflow';

/** The eval's judge (`--judge provider/model`, `--rubric`), for every case. */
export interface JudgeSettings {
  model: string;
  /** The rubric of a case that has none of its own. */
  rubric?: string;
  /** Show the judge the run's tool calls too. */
  toolCalls?: boolean;
}

const verdictSchema = z.object({
  pass: z.boolean(),
  score: z.number().min(0).max(1),
  reason: z.string(),
});

/** Where the judge's run and prompt stand out from the cases' own (for a scripted provider too). */
export const JUDGE_SYSTEM_PROMPT =
  "You are an eval's judge: you grade what an AI agent did against a rubric, strictly and only by the " +
  'rubric. Answer with one JSON object and nothing else: {"pass": true or false, "score": a number ' +
  'from 0 to 1, "reason": "why, in a sentence or two"}.';

/** The judge a case is graded by: its own rubric and model over the eval's; undefined: none. */
function judgeOf(c: EvalCase, settings: JudgeSettings | undefined): Partial<CaseJudgeInput> | undefined {
  if (!c.judge && !settings) return undefined;
  const model = c.judge?.model ?? settings?.model;
  const rubric = c.judge?.rubric ?? settings?.rubric;
  return {
    ...(model ? { model } : {}),
    ...(rubric ? { rubric } : {}),
    toolCalls: c.judge?.toolCalls ?? settings?.toolCalls ?? false,
  };
}

/** Why a case cannot be judged as it is set: no judge model, or no rubric. */
export function judgeProblem(c: EvalCase, settings: JudgeSettings | undefined): string | undefined {
  const judge = judgeOf(c, settings);
  if (!judge) return undefined;
  if (!judge.model) return `case "${c.name}" has a judge but names no judge model: give --judge provider/model`;
  if (!judge.rubric) return `case "${c.name}" has no rubric for the judge: give --rubric, or judge.rubric in the case`;
  return undefined;
}

/** The judge of case `c`, resolved as the eval's input carries it; undefined when it has none. */
export function caseJudge(c: EvalCase, settings: JudgeSettings | undefined): CaseJudgeInput | undefined {
  const { model, rubric, toolCalls = false } = judgeOf(c, settings) ?? {};
  return model && rubric ? { model, rubric, toolCalls } : undefined;
}

/** What the judge reads: the rubric, the task, the tool calls when asked, the final answer. */
function judgeTask(task: string, judge: CaseJudgeInput, run: CaseRun | undefined): string {
  const calls = (run?.toolCalls ?? []).map((t, i) => `${i + 1}. ${t.name} ${canonicalJson(t.arguments)}`);
  return [
    `## Rubric\n${judge.rubric}`,
    `## The task the agent was given\n${task || '(the recorded conversation up to a turn)'}`,
    ...(judge.toolCalls ? [`## The tool calls it made, in order\n${calls.join('\n') || 'none'}`] : []),
    `## Its final answer\n${run?.result.finalText || '(no answer)'}`,
    'Grade the final answer against the rubric.',
  ].join('\n\n');
}

/**
 * The judge's run works where its case did (its tenant, at its priority), on the workers' own
 * activity queue and with no reservation of the case's expected cost.
 */
const judgeFleet = ({ taskQueue: _queue, expectedCostUsd: _expected, ...fleet }: FleetSpec): FleetSpec => fleet;

/** The options the judge's run starts with, over the case's `task` and what its run did (`run`). */
export function judgeStart(
  task: string,
  judge: CaseJudgeInput,
  run: CaseRun | undefined,
  fleet: FleetSpec | undefined,
): StartAgentOptions {
  return {
    task: judgeTask(task, judge, run),
    model: judge.model,
    systemPrompt: JUDGE_SYSTEM_PROMPT,
    tools: { allow: [] },
    limits: { maxTurns: 1 },
    ...(fleet ? { fleet: judgeFleet(fleet) } : {}),
  };
}

/** A case the judge is asked about: its run's id, its task, what its run did, the fleet it ran in. */
export interface JudgedCase {
  id: string;
  task: string;
  run: CaseRun;
  fleet?: FleetSpec;
}

/**
 * Asks the judge about a case's run and reads its verdict. The judge's run is `<case run>/judge-<hash
 * of what it is asked>`: one that ran already is read, not asked again.
 */
export async function judgeRun(
  agents: AgentClient,
  { id: caseId, task, run, fleet }: JudgedCase,
  judge: CaseJudgeInput,
): Promise<JudgeOutcome> {
  const start = judgeStart(task, judge, run, fleet);
  const id = `${caseId}/judge-${hashString(canonicalJson({ model: judge.model, task: start.task }))}`;
  const exists = () =>
    agents.client.workflow
      .getHandle(id)
      .describe()
      .then(
        () => true,
        () => false,
      );
  // Another process reporting the same eval may start the same judge between the look and the start.
  if (!(await exists()))
    await agents.start({ ...start, id }).catch(async (err: unknown) => {
      if (!(await exists())) throw err;
    });
  const result = await agents.result(id);
  const spent = { id, tokens: totalTokens(result.usage), costUsd: result.costUsd };
  if (result.stopReason !== 'completed') {
    const why = result.error?.message ? `: ${result.error.message}` : '';
    return { ...spent, pass: false, reason: `the judge's run ended ${result.stopReason}${why}` };
  }
  try {
    return { ...spent, ...extract(verdictSchema, result.finalText) };
  } catch (err) {
    return { ...spent, pass: false, reason: `the judge's answer is not a verdict: ${errorText(err)}` };
  }
}

function judgeGrader(judge: JudgeOutcome): GraderOutcome {
  const name = 'judge';
  if (judge.pass) return { name, pass: true };
  const score = judge.score === undefined ? '' : `score ${judge.score}: `;
  return { name, pass: false, message: `${score}${judge.reason}` };
}

/** A case's outcome with the judge's verdict as its last grader. */
export function judgedOutcome(outcome: CaseOutcome, judge: JudgeOutcome): CaseOutcome {
  const graders = [...outcome.graders, judgeGrader(judge)];
  const failed = graders.find((g) => !g.pass);
  const { failed: _failed, ...rest } = outcome;
  return { ...rest, graders, pass: failed === undefined, ...(failed ? { failed } : {}), judge };
}
