/**
 * Plan confirmation (`confirmPlan`): the plan waits in the `confirming` phase for the
 * caller's decision, given by an update so the caller sees it accepted or refused. Approval starts
 * execution; a rejection's feedback goes back to the planner in the same cycle; no decision within
 * the approval timeout ends the run as `plan_not_confirmed`.
 */
import { condition, setHandler } from '@temporalio/workflow';
import { formatDuration } from '../../common/duration';
import { decidePlanUpdate, type PlanDecisionInput } from '../../contracts/agent-workflows';
import { planDecisionDetails } from '../../policy/current-details';
import { previewText } from '../../policy/previews';
import { PLAN_WAIT_SUMMARY } from '../../policy/run-summaries';
import {
  emit,
  endIfStoppedOrLimited,
  finish,
  publishSearchAttributes,
  refuse,
  updateCurrentDetails,
  type LoopOutcome,
} from '../agent';
import { endRounds, setPhase } from './phases';
import { trace, type PevContext } from './role-turn';

/** Largest feedback text accepted with a rejection. */
const MAX_PLAN_FEEDBACK_CHARS = 8_000;

function decisionRefusal(pctx: PevContext, input: PlanDecisionInput): string | undefined {
  if (pctx.agent.state.stopReason !== undefined) return `the run has ended (${pctx.agent.state.stopReason})`;
  if (!input || typeof input.approve !== 'boolean') return 'a plan decision needs approve: true or false';
  if (
    input.feedback !== undefined &&
    (typeof input.feedback !== 'string' || input.feedback.length > MAX_PLAN_FEEDBACK_CHARS)
  )
    return `feedback must be a string of at most ${MAX_PLAN_FEEDBACK_CHARS} characters`;
  if (pctx.pev.progress.phase !== 'confirming')
    return `no plan is waiting for a decision (phase ${pctx.pev.progress.phase})`;
  if (pctx.pev.planDecision) return 'this plan has already been decided';
  return undefined;
}

export function registerPlanDecision(pctx: PevContext): void {
  setHandler(
    decidePlanUpdate,
    (input) => {
      pctx.agent.state.updatesHandled += 1;
      pctx.pev.planDecision = {
        approve: input.approve,
        ...(input.feedback?.trim() ? { feedback: input.feedback.trim() } : {}),
      };
      return { approved: input.approve, cycle: pctx.pev.progress.cycle };
    },
    { validator: (input) => refuse(decisionRefusal(pctx, input)) },
  );
}

/** Waits for the decision on the current plan. */
export async function confirmingPhase(pctx: PevContext): Promise<LoopOutcome | undefined> {
  const { state } = pctx.agent;
  const { pev } = pctx;
  const timeoutMs = state.config.limits.approvalTimeoutMs;
  state.status = 'awaiting_approval';
  updateCurrentDetails(pctx.agent, {
    doing: PLAN_WAIT_SUMMARY,
    waiting: planDecisionDetails(pctx.agent.workflowId, pev.progress.todos),
  });
  publishSearchAttributes(pctx.agent, 'confirming');
  const decided = await condition(
    () => pev.planDecision !== undefined || state.stopRequested !== undefined,
    timeoutMs,
    { summary: PLAN_WAIT_SUMMARY },
  );
  state.status = 'running';
  updateCurrentDetails(pctx.agent, { doing: undefined, waiting: undefined });
  const ended = await endIfStoppedOrLimited(pctx.agent);
  if (ended) return ended;
  // After a timeout, a decision that came too late is dropped: the timeout decides.
  const decision = decided ? pev.planDecision : undefined;
  pev.planDecision = undefined;
  const by = decision ? 'user' : 'timeout';
  const approved = decision?.approve ?? false;
  const feedback = decision?.feedback;
  trace(pctx, { type: 'plan_decided', approved, by, ...(feedback ? { feedback } : {}) });
  emit(pctx.agent, {
    type: 'plan_decided',
    cycle: pev.progress.cycle,
    approved,
    by,
    ...(feedback ? { feedback: previewText(feedback) } : {}),
  });
  if (!decision) {
    endRounds(pctx, 'plan_not_confirmed', `The plan was not confirmed within ${formatDuration(timeoutMs)}.`);
    return finish(pctx.agent, 'completed');
  }
  if (decision.approve) {
    setPhase(pctx, 'executing');
  } else {
    pev.progress.improvements = [decision.feedback ?? 'The user rejected the plan; propose a different one.'];
    setPhase(pctx, 'planning');
  }
  return undefined;
}
