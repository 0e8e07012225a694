/**
 * An eval as a durable workflow (docs/evals.md): each case's run is a child workflow with the id the
 * client gave it, so it starts exactly once however often the eval's workers are lost; at most
 * `parallel` run at a time; each ended case is graded by an activity (what the run did is read
 * from its state and the content store). Cancelling the eval cancels the cases still running:
 * each ends as cancelled and is graded, the cases not started are not run, and the eval returns
 * its progress with status `cancelled`.
 */
import {
  CancellationScope,
  getExternalWorkflowHandle,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import {
  evalProgressQuery,
  type EvalActivities,
  type EvalCaseInput,
  type EvalProgress,
  type EvalWorkflowInput,
} from '../../contracts/eval-workflow';
import { progressLine } from '../../policy/eval-progress';

const { gradeEvalCase } = proxyActivities<EvalActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});

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
    const result = await child.result();
    running.delete(workflowId);
    const latencyMs = new Date().getTime() - started;
    at.outcome = await gradeEvalCase({ name: c.name, id: workflowId, graders: c.graders, result, latencyMs });
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
