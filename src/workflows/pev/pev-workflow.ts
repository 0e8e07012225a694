/**
 * `pevAgentWorkflow`: Planner → Executor → Verifier rounds as a durable agent run.
 * Everything of the agent loop carries over (steering, follow-ups, approvals, stop, provider
 * switching, limits, hooks, events, references instead of transcripts, continue-as-new); this
 * file adds the phases, the prompts, the `pev` progress and the todo list in the result.
 */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { configProblems } from '../../policy/agent-config';
import { stateQuery } from '../../contracts/agent-workflows';
import { carryState, initialState, restoreState, resultOf, stateView } from '../../policy/agent-state';
import { CORE_ROLE_NAMES } from '../../policy/pev/roles';
import { currentPevState, initialProgress, pevOptionProblems, resolvePevOptions } from '../../policy/pev/pev-options';
import {
  pevProgressQuery,
  type PevAgentResult,
  type PevState,
  type PevStateView,
  type PevWorkflowInput,
} from '../../contracts/pev-run';
import {
  createAgentIO,
  emit,
  finish,
  injectFollowUps,
  newRunContext,
  publishSearchAttributes,
  registerHandlers,
  shouldContinueAsNew,
  startConversation,
  type LoopOutcome,
} from '../agent';
import { confirmingPhase, registerPlanDecision } from './confirm-plan';
import { openRunStream } from '../agent/watch-stream';
import { createPevIO } from './pev-io';
import { executingPhase, planningPhase, setPhase, verifyingPhase } from './phases';
import type { PevContext } from './role-turn';

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
async function takeFollowUps(pctx: PevContext): Promise<boolean> {
  const { state } = pctx.agent;
  const texts = [...state.steering, ...state.followUps].map((m) => m.text);
  if (!(await injectFollowUps(pctx.agent))) return false;
  const { pev } = pctx;
  pev.request = texts.join('\n\n');
  pev.endReason = undefined;
  pev.progress = { ...initialProgress(), trace: pev.progress.trace };
  return true;
}

async function runPev(pctx: PevContext): Promise<LoopOutcome> {
  const { pev } = pctx;
  await startConversation(pctx.agent, Object.values(pev.options.models));
  pev.prompts ??= await pctx.io.preparePevPrompts({
    ...(pev.options.promptsDir ? { promptsDir: pev.options.promptsDir } : {}),
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
      outcome = await executingPhase(pctx);
    } else if (progress.phase === 'verifying') {
      outcome = await verifyingPhase(pctx);
    } else {
      if (await takeFollowUps(pctx)) {
        setPhase(pctx, 'planning');
        continue;
      }
      return finish(pctx.agent, 'completed');
    }
    if (outcome) return outcome;
  }
}

function resultOfPev(id: string, pctx: PevContext): PevAgentResult {
  const base = resultOf(id, pctx.agent.state);
  const { pev } = pctx;
  const endReason = pev.endReason;
  const stopReason =
    base.stopReason === 'completed' && endReason !== undefined && endReason !== 'completed'
      ? endReason
      : base.stopReason;
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

/** Planner → Executor → Verifier rounds, or Plan mode (one planning round, one cycle) with `pev.mode: 'plan'`. */
export async function pevAgentWorkflow(input: PevWorkflowInput): Promise<PevAgentResult> {
  const problems = [...configProblems(input.config), ...pevOptionProblems(input.pev)];
  if (problems.length > 0)
    throw ApplicationFailure.nonRetryable(`Invalid agent config: ${problems.join('; ')}`, AGENT_FAILURE.config);
  const info = workflowInfo();
  const state = input.carry ? restoreState(input.config, input.carry) : initialState(input.config, info.workflowId);
  const stream = openRunStream(input.streamState);
  const agent = newRunContext(
    state,
    createAgentIO({ taskQueue: input.config.activityTaskQueue, stream: input.config.stream }),
    stream,
  );
  const pctx: PevContext = {
    agent,
    pev: input.pevCarry ? currentPevState(input.pevCarry) : initialPevState(input),
    io: createPevIO({ taskQueue: input.config.activityTaskQueue }),
  };
  registerHandlers(agent);
  setHandler(stateQuery, (): PevStateView => ({ ...stateView(agent.workflowId, state), pev: pctx.pev.progress }));
  setHandler(pevProgressQuery, () => pctx.pev.progress);
  registerPlanDecision(pctx);
  publishSearchAttributes(agent, pctx.pev.progress.phase);
  if (!input.pevCarry) emit(agent, { type: 'phase', phase: pctx.pev.progress.phase, cycle: pctx.pev.progress.cycle });

  // Cancellation ends the run like a stop: the current activity finishes, open calls get results.
  CancellationScope.current().cancelRequested.catch(() => {
    state.stopRequested ??= { reason: 'cancelled' };
  });
  const outcome = await CancellationScope.nonCancellable(() => runPev(pctx));

  if (outcome === 'continue_as_new') emit(agent, { type: 'continued_as_new', runs: state.runs });
  // Watchers' polls wait for new entries: wake them, or allHandlersFinished would never hold.
  stream.detach();
  await condition(allHandlersFinished);
  if (outcome === 'continue_as_new') {
    return continueAsNew<typeof pevAgentWorkflow>({
      config: input.config,
      carry: carryState(state),
      pev: input.pev,
      pevCarry: pctx.pev,
      streamState: stream.carry(),
    });
  }
  return resultOfPev(info.workflowId, pctx);
}
