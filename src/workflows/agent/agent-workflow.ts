/** The ReAct agent workflow, and the run scaffolding any agent kind can reuse. */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  workflowInfo,
} from '@temporalio/workflow';
import { configProblems } from '../../policy/agent-config';
import type { AgentWorkflowInput } from '../../contracts/agent-workflows';
import { carryState, initialState, restoreState, resultOf } from '../../policy/agent-state';
import type { AgentResult } from '../../contracts/agent-run';
import { registerHandlers } from './handlers';
import { createAgentIO } from './agent-io';
import { runAgentLoop, type LoopOutcome } from './loop';
import { emit, newRunContext, publishSearchAttributes, type RunContext } from './run-context';
import { openRunStream } from './watch-stream';

/**
 * Runs `loop` as a durable agent: state (fresh or carried), handlers, search attributes,
 * cancellation as a clean stop, and continue-as-new (handlers drained first) when the loop asks.
 */
export async function runAgentWorkflow(
  input: AgentWorkflowInput,
  loop: (ctx: RunContext) => Promise<LoopOutcome>,
): Promise<AgentResult> {
  const problems = configProblems(input.config);
  if (problems.length > 0)
    throw ApplicationFailure.nonRetryable(`Invalid agent config: ${problems.join('; ')}`, AGENT_FAILURE.config);
  const info = workflowInfo();
  const state = input.carry ? restoreState(input.config, input.carry) : initialState(input.config, info.workflowId);
  const stream = openRunStream(input.streamState);
  const ctx = newRunContext(
    state,
    createAgentIO({ taskQueue: input.config.activityTaskQueue, stream: input.config.stream }),
    stream,
  );
  registerHandlers(ctx);
  publishSearchAttributes(ctx, 'start');

  // Cancellation ends the run like a stop: the current activity finishes, open calls get results.
  CancellationScope.current().cancelRequested.catch(() => {
    state.stopRequested ??= { reason: 'cancelled' };
  });
  const outcome = await CancellationScope.nonCancellable(() => loop(ctx));

  if (outcome === 'continue_as_new') emit(ctx, { type: 'continued_as_new', runs: state.runs });
  // Watchers' polls wait for new entries: wake them, or allHandlersFinished would never hold.
  stream.detach();
  // Awaited outside the cancellable root scope: a cancelled run still returns its final state.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  if (outcome === 'continue_as_new') {
    return continueAsNew<typeof reactAgentWorkflow>({
      config: input.config,
      carry: carryState(state),
      streamState: stream.carry(),
    });
  }
  return resultOf(info.workflowId, state);
}

/** A tool-calling ReAct agent: think, act with tools, observe, until it answers. */
export async function reactAgentWorkflow(input: AgentWorkflowInput): Promise<AgentResult> {
  return runAgentWorkflow(input, runAgentLoop);
}
