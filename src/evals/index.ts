/** Evals (docs/evals.md): cases, graders, running them and reporting. */
export {
  defineEvalCase,
  parseCases,
  type Bound,
  type CaseApproval,
  type CaseJudge,
  type CaseOptions,
  type CaseRun,
  type CodeGrader,
  type DataGrader,
  type EvalCase,
  type Grader,
  type GraderVerdict,
} from './eval-case';
export { firstEffectDifference, grade, graderName, type GraderOutcome } from './graders';
export { JUDGE_SYSTEM_PROMPT, type JudgeOutcome, type JudgeSettings } from './judge';
export { caseStart, type CaseOutcome, type CaseSettings } from './run-case';
export { readCaseFiles } from './case-files';
export { gateFailures, needsBaseline, parseGate, type GateClause } from './gate';
export { junitXml, reportTable, summaryLine } from './report';
export {
  DEFAULT_PARALLEL,
  EvalInputError,
  checkCases,
  summarize,
  type EvalReport,
  type EvalSettings,
  type EvalSummary,
} from './suite';
export { cancelEval, evalProgress, evalReport, runEval, startEval, waitForEval, type EvalStart } from './eval-runs';
export type { EvalProgress } from '../contracts/eval-workflow';
export { progressLine } from '../policy/eval-progress';
export { observedOutcome, recordedCase, recordedGraders, servedTable } from './recorded-case';
export { selectRecordedRuns, type SelectedRuns } from './select-runs';
export { comparison, verdictChanges } from './compare';
