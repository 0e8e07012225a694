// The canary of the replay gate: the ReAct agent with a plausible regression (search attributes no
// longer upserted), which changes the command sequence. Replaying a recorded agent history against
// it must fail with a determinism error: proof that the gate can fail at all.
import type { AgentWorkflowInput } from '../../src/contracts/agent-workflows';
import type { AgentResult } from '../../src/contracts/agent-run';
import { runAgent } from '../../src/workflows/agent';
import { reactKind } from '../../src/workflows/react';

export async function reactAgentWorkflow(input: AgentWorkflowInput): Promise<AgentResult> {
  return runAgent({ ...input, config: { ...input.config, searchAttributes: false } }, reactKind);
}
