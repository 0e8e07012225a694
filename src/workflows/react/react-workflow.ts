/** The ReAct agent: think, act with tools, observe, until it answers. The run scaffold's first kind. */
import { setWorkflowOptions } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../contracts/agent-workflows';
import type { AgentResult } from '../../contracts/agent-run';
import {
  agentTurn,
  finish,
  injectFollowUps,
  runAgent,
  shouldContinueAsNew,
  startConversation,
  stopRequest,
  type AgentKind,
  type LoopOutcome,
  type RunContext,
} from '../agent';
import { pinnedOnVersionedWorkers } from '../versioning-behavior';

/** Turns until an answer without tool calls; queued follow-ups start another turn. */
async function runReact(ctx: RunContext): Promise<LoopOutcome> {
  await startConversation(ctx);
  const hooks = { continueAsNew: () => shouldContinueAsNew(ctx) };
  for (;;) {
    const turn = await agentTurn(ctx, hooks);
    if (turn.type === 'end') return turn.outcome;
    if (turn.type !== 'answer') continue;
    const stop = stopRequest(ctx);
    if (stop) return finish(ctx, stop.reason);
    if (await injectFollowUps(ctx)) continue;
    // A stop that ended the wait for a follow-up.
    return finish(ctx, stopRequest(ctx)?.reason ?? 'completed');
  }
}

/** ReAct needs nothing of its own beyond the run: its context is the run context. */
export const reactKind: AgentKind<AgentWorkflowInput, RunContext> = {
  context: (_input, run) => run,
  startPhase: () => 'running',
  run: runReact,
  result: (_ctx, base) => base,
};

/** A tool-calling ReAct agent: think, act with tools, observe, until it answers. */
export async function reactAgentWorkflow(input: AgentWorkflowInput): Promise<AgentResult> {
  return runAgent(input, reactKind);
}

setWorkflowOptions(pinnedOnVersionedWorkers, reactAgentWorkflow);
