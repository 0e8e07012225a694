/**
 * Scores on runs (docs/evals.md, Scores on production runs): a person or a program grades a run,
 * open or closed, under a name. A closed run's search attributes cannot change, so each score is a
 * record of its own: a workflow that completes at once, its search attributes naming the run, the
 * score's name and its value, so that a visibility query (`DurableAgentScoreName = 'helpful' AND
 * DurableAgentScore < 0.5`) selects the runs a score puts in a cohort.
 */

/** A score given to a run. */
export interface RunScore {
  /** The scored run's workflow id. */
  run: string;
  /** What is scored, e.g. `helpful`: letters, digits, `_`, `-` and `.`, at most 64. */
  name: string;
  value: number;
  comment?: string;
  /** When it was given (ISO 8601). */
  at: string;
}

/** The workflow type of a score record. */
export const SCORE_RECORD_WORKFLOW = 'scoreRecordWorkflow';

/** A score's name as it must be written. */
export const SCORE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The one record of `name` on `run`: scoring again replaces it. */
export const scoreRecordId = (run: string, name: string): string => `score/${name}/${run}`;
