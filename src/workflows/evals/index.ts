/**
 * An eval as a durable workflow (docs/evals.md): each case's run is a child workflow with the id the
 * client gave it, so it starts exactly once however often the eval's workers are lost; at most
 * `parallel` run at a time; each ended case is graded by an activity (what the run did is read
 * from its state and the content store). Cancelling the eval cancels the cases still running:
 * each ends as cancelled and is graded, the cases not started are not run, and the eval returns
 * its progress with status `cancelled`.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  getExternalWorkflowHandle,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import { errorText } from '../../common/error-text';
import type { AgentResult } from '../../contracts/agent-run';
import {
  evalProgressQuery,
  type CaseOutcome,
  type EvalActivities,
  type EvalCaseInput,
  type EvalProgress,
  type EvalWorkflowInput,
} from '../../contracts/eval-workflow';
import { progressLine } from '../../policy/eval-progress';
import { isAgentResult } from '../../policy/run-result';

const { gradeEvalCase } = proxyActivities<EvalActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});

/**
 * A case run's result: what it returned, or what a failed run carries in its failure (graded as
 * any result); a run that closed otherwise (terminated, timed out) is the reason, not a result.
 */
async function caseResult(ended: Promise<AgentResult>): Promise<AgentResult | string> {
  try {
    return await ended;
  } catch (err) {
    const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
    const carried = cause instanceof ApplicationFailure ? cause.details?.find(isAgentResult) : undefined;
    if (carried) return { ...carried, status: 'failed' };
    return `the run closed without a result: ${cause?.message ?? errorText(err)}`;
  }
}

/** The outcome of a case whose run left no result to grade: failed, with the reason. */
function closedOutcome(name: string, id: string, reason: string, latencyMs: number): CaseOutcome {
  const failed = { name: 'run', pass: false, message: reason };
  return {
    name,
    id,
    pass: false,
    graders: [failed],
    failed,
    stopReason: 'error',
    turns: 0,
    tokens: 0,
    costUsd: 0,
    latencyMs,
    drift: 0,
  };
}

export async function evalWorkflow(input: EvalWorkflowInput): Promise<EvalProgress> {
  const progress: EvalProgress = {
    name: input.name,
    status: 'running',
    cases: input.cases.map((c) => ({ name: c.name, id: c.start.workflowId, status: 'pending' })),
  };
  const shown = () => setCurrentDetails(progressLine(progress));
  setHandler(evalProgressQuery, () => progress);
  shown();
  let cancelled = false;
  const running = new Set<string>();
  const cancelCase = (id: string) =>
    CancellationScope.nonCancellable(() => getExternalWorkflowHandle(id).cancel()).catch(() => undefined);
  CancellationScope.current().cancelRequested.catch(() => {
    cancelled = true;
    for (const id of running) void cancelCase(id);
  });

  const runOne = async (c: EvalCaseInput, i: number): Promise<void> => {
    const at = progress.cases[i];
    at.status = 'running';
    shown();
    const { workflowType, workflowId, ...options } = c.start;
    const started = new Date().getTime();
    const child = await startChild(workflowType, { workflowId, ...options });
    running.add(workflowId);
    if (cancelled) await cancelCase(workflowId);
    const result = await caseResult(child.result() as Promise<AgentResult>);
    running.delete(workflowId);
    const latencyMs = new Date().getTime() - started;
    at.outcome =
      typeof result === 'string'
        ? closedOutcome(c.name, workflowId, result, latencyMs)
        : await gradeEvalCase({ name: c.name, id: workflowId, graders: c.graders, result, latencyMs });
    at.status = 'done';
    shown();
  };

  let next = 0;
  const lane = async (): Promise<void> => {
    while (!cancelled && next < input.cases.length) {
      const i = next++;
      await runOne(input.cases[i], i);
    }
  };
  const lanes = Math.max(1, Math.min(input.parallel, input.cases.length));
  // The cases run outside the eval's cancellation: a cancel reaches them as a cancel of each run.
  await CancellationScope.nonCancellable(() => Promise.all(Array.from({ length: lanes }, lane)));
  for (const c of progress.cases) if (c.status === 'pending') c.status = 'not_run';
  progress.status = cancelled ? 'cancelled' : 'completed';
  shown();
  return progress;
}
