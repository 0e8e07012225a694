/** The Planner → Executor → Verifier kind as data (`contracts/kind-facts.ts`). */
import type { KindFacts } from '../../contracts/kind-facts';

export const PEV_FACTS: KindFacts = {
  name: 'pev',
  workflowType: 'pevAgentWorkflow',
  // The planner and the verifier cannot call a tool to read a masked result back.
  masks: false,
  ownPrompts: 'each role has its own prompt (pev.businessContext, pev.promptsDir)',
  callSettings: 'sampling',
  answerRoles: { planning: 'planner', executing: 'executor', verifying: 'verifier' },
};
