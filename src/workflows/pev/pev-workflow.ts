/**
 * `pevAgentWorkflow`: Planner → Executor → Verifier rounds as an agent kind. The run scaffold
 * brings everything of an agent run (steering, follow-ups, approvals, stop and cancel, provider
 * switching, limits, hooks, events, references instead of transcripts, continue-as-new); this
 * kind adds the phases, the role prompts, the `pev` progress and the todo list in the result.
 */
import { setHandler, setWorkflowOptions } from '@temporalio/workflow';
import { CORE_ROLE_NAMES } from '../../policy/pev/roles';
import { initialProgress, pevOptionProblems, resolvePevOptions } from '../../policy/pev/pev-options';
import {
  pevProgressQuery,
  type PevAgentResult,
  type PevState,
  type PevStateView,
  type PevWorkflowInput,
} from '../../contracts/pev-run';
import type { AgentResult } from '../../contracts/agent-run';
import type { PevEndReason } from '../../contracts/pev-progress';
import {
  emit,
  finish,
  injectFollowUps,
  runAgent,
  shouldContinueAsNew,
  startConversation,
  stopRequest,
  type AgentKind,
  type LoopOutcome,
} from '../agent';
import { confirmingPhase, registerPlanDecision } from './confirm-plan';
import { createPevIO } from './pev-io';
import { planningPhase, setPhase, verifyingPhase } from './phases';
import { executingPhase } from './executing';
import type { PevContext } from './role-turn';
import { executingInChildren, fansOut } from './fan-out';
import { pinnedOnVersionedWorkers } from '../versioning-behavior';
import { planProgressDetails } from '../../policy/pev/plan-progress';

function initialPevState(input: PevWorkflowInput): PevState {
  return {
    options: resolvePevOptions(input.pev),
    request: input.config.task,
    progress: initialProgress(),
    ledger: {},
    roleResolvers: {},
  };
}

/**
 * A follow-up (or steering too late to redirect anything) after the rounds ended is a new request: planning starts
 * again.
 */
function newRequest({ pev }: PevContext, texts: readonly string[]): void {
  pev.request = texts.join('\n\n');
  pev.endReason = undefined;
  pev.progress = { ...initialProgress(), trace: pev.progress.trace };
  // A new request is read against the world as it is now.
  pev.ledger = {};
}

async function runPev(pctx: PevContext): Promise<LoopOutcome> {
  const { pev } = pctx;
  await startConversation(pctx.agent, Object.values(pev.options.models));
  pev.prompts ??= await pctx.io.preparePevPrompts({
    conversationId: pctx.agent.state.conversationId,
    ...(pev.options.promptsDir ? { promptsDir: pev.options.promptsDir } : {}),
    ...(pev.options.businessContext ? { businessContext: pev.options.businessContext } : {}),
    roles: [...CORE_ROLE_NAMES],
    structuredOutput: pev.options.structuredOutput,
  });
  for (;;) {
    const { progress } = pev;
    let outcome: LoopOutcome | undefined;
    if (progress.phase === 'planning') {
      if (progress.round === 0 && shouldContinueAsNew(pctx.agent)) return 'continue_as_new';
      outcome = await planningPhase(pctx);
    } else if (progress.phase === 'confirming') {
      outcome = await confirmingPhase(pctx);
    } else if (progress.phase === 'executing') {
      outcome = fansOut(pctx) ? await executingInChildren(pctx) : await executingPhase(pctx);
    } else if (progress.phase === 'verifying') {
      outcome = await verifyingPhase(pctx);
    } else {
      if (await injectFollowUps(pctx.agent)) {
        setPhase(pctx, 'planning');
        continue;
      }
      // A stop that ended the wait for a follow-up.
      const stop = pctx.agent.state.config.session?.idleWaitMs ? stopRequest(pctx.agent) : undefined;
      return finish(pctx.agent, stop?.reason ?? 'completed');
    }
    if (outcome) return outcome;
  }
}

/** How the rounds ended, when not with a verified answer: the run's stop reason in place of `completed`. */
const unfinished = ({ pev }: PevContext): Exclude<PevEndReason, 'completed'> | undefined =>
  pev.endReason === 'completed' ? undefined : pev.endReason;

function resultOfPev(pctx: PevContext, base: AgentResult): PevAgentResult {
  const { pev } = pctx;
  const endReason = pev.endReason;
  const stopReason = base.stopReason === 'completed' ? (unfinished(pctx) ?? base.stopReason) : base.stopReason;
  return {
    ...base,
    stopReason,
    todos: pev.progress.todos,
    pev: {
      mode: pev.options.mode,
      cycles: pev.progress.cycle,
      verified: endReason === 'completed',
      ...(endReason ? { endReason } : {}),
      trace: pev.progress.trace,
    },
  };
}

/** The Planner → Executor → Verifier kind: its state, query, plan decision, phases and result. */
export const pevKind: AgentKind<PevWorkflowInput, PevContext, PevAgentResult> = {
  problems: (input) => [
    ...pevOptionProblems(input.pev),
    ...(input.config.plan?.length ? ["plan does not apply to pev runs: the planner's todos are their plan"] : []),
  ],
  context: (input, agent) => ({
    agent,
    pev: input.pevCarry ?? initialPevState(input),
    io: createPevIO({ taskQueue: input.config.fleet?.taskQueue }),
  }),
  view: (pctx): Pick<PevStateView, 'pev'> => ({ pev: pctx.pev.progress }),
  register(pctx) {
    setHandler(pevProgressQuery, () => pctx.pev.progress);
    registerPlanDecision(pctx);
  },
  startPhase: (pctx) => pctx.pev.progress.phase,
  begin(pctx, input) {
    const { progress } = pctx.pev;
    pctx.agent.current.progress = () => planProgressDetails(pctx.pev.progress);
    if (!input.pevCarry) emit(pctx.agent, { type: 'phase', phase: progress.phase, cycle: progress.cycle });
  },
  run: runPev,
  followUps: newRequest,
  carry: (pctx, input) => ({ pev: input.pev, pevCarry: pctx.pev }),
  endReason: unfinished,
  result: resultOfPev,
};

/** Planner → Executor → Verifier rounds, or Plan mode (one planning round, one cycle) with `pev.mode: 'plan'`. */
export async function pevAgentWorkflow(input: PevWorkflowInput): Promise<PevAgentResult> {
  return runAgent(input, pevKind);
}

setWorkflowOptions(pinnedOnVersionedWorkers, pevAgentWorkflow);
