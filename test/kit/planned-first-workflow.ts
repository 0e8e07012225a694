/**
 * A test-only agent kind whose first turn makes a tool call no model asked for (a plan's), before
 * any model call: the run's tools must be pinned before that turn, not by a first model call.
 */
import {
  agentTurn,
  finish,
  runAgent,
  startConversation,
  type AgentResult,
  type AgentWorkflowInput,
  type ToolCallRequest,
} from '../../src/workflow';

export interface PlannedFirstInput extends AgentWorkflowInput {
  plannedCall: ToolCallRequest;
}

export async function plannedFirstWorkflow(input: PlannedFirstInput): Promise<AgentResult> {
  let planned: ToolCallRequest[] | undefined = [input.plannedCall];
  return runAgent(input, {
    context: (_input, run) => run,
    startPhase: () => 'running',
    run: async (run) => {
      await startConversation(run);
      for (;;) {
        const turn = await agentTurn(run, {
          planned: () => {
            const calls = planned;
            planned = undefined;
            return calls;
          },
        });
        if (turn.type === 'end') return turn.outcome;
        if (turn.type === 'answer') return finish(run, 'completed');
      }
    },
    result: (_run, base) => base,
  });
}
