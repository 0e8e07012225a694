/**
 * An eval as a durable workflow (docs/evals.md): its input (each case's checked run start, its
 * graders written as data), its progress query, the activity that grades an ended case, and its
 * result. Plain JSON.
 */
import { defineQuery } from '@temporalio/workflow';
import type { AgentResult } from './agent-run';
import type { PreparedStart } from './agent-workflows';

/** The workflow type of an eval. */
export const EVAL_WORKFLOW = 'evalWorkflow';

/** A grader written as data (a case file's); the grading activity reads it. */
export type EvalGraderData = { type: string; name?: string } & Record<string, unknown>;

/** One case of an eval: its name, its run's start, and the graders the workers run. */
export interface EvalCaseInput {
  name: string;
  /** Its run's start, checked by the client; the eval starts it as its child. */
  start: PreparedStart;
  graders: EvalGraderData[];
  /** Its model-graded judge: not run by the eval, but by whoever reports it (docs/evals.md, The judge). */
  judge?: CaseJudgeInput;
}

/** The judge of a case, resolved: its model, its rubric, whether it is shown the run's tool calls. */
export interface CaseJudgeInput {
  model: string;
  rubric: string;
  toolCalls: boolean;
}

/** What the judge said of a case's run, and what asking it cost (not the case's tokens and cost). */
export interface JudgeOutcome {
  /** The judge's own run. */
  id: string;
  pass: boolean;
  /** The judge's score, 0 to 1; absent when its answer gave none that parsed. */
  score?: number;
  reason: string;
  tokens: number;
  costUsd: number;
}

export interface EvalWorkflowInput {
  /** What the eval is called (its summary in the Web UI). */
  name: string;
  cases: EvalCaseInput[];
  /** Cases running at a time. */
  parallel: number;
}

/** One grader's outcome: its name, whether it passed, and why not. */
export interface GraderOutcome {
  name: string;
  pass: boolean;
  message?: string;
}

/** What one case did and how it was graded. */
export interface CaseOutcome {
  name: string;
  id: string;
  pass: boolean;
  graders: GraderOutcome[];
  /** The first grader that failed. */
  failed?: GraderOutcome;
  stopReason: AgentResult['stopReason'];
  turns: number;
  tokens: number;
  costUsd: number;
  latencyMs: number;
  drift: number;
  /** The judge's verdict and what it cost, once the eval is reported. */
  judge?: JudgeOutcome;
}

/** What the grading activity is given: the ended case's run and its result. */
export interface GradeCaseInput {
  name: string;
  id: string;
  graders: EvalGraderData[];
  result: AgentResult;
  latencyMs: number;
}

/** The activities of an eval. */
export interface EvalActivities {
  /** Reads what the ended run did (its state's events, its messages in the content store) and grades it. */
  gradeEvalCase(input: GradeCaseInput): Promise<CaseOutcome>;
}

export type EvalCaseStatus = 'pending' | 'running' | 'done' | 'not_run';

/** Where an eval is: each case's status, the outcomes of those done, in the cases' order. */
export interface EvalProgress {
  name: string;
  status: 'running' | 'completed' | 'cancelled';
  cases: { name: string; id: string; status: EvalCaseStatus; outcome?: CaseOutcome }[];
}

/** An eval's progress; its result is the same, once it has ended. */
export const evalProgressQuery = defineQuery<EvalProgress>('evalProgress');
