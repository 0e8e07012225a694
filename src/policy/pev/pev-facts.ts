/** The Planner → Executor → Verifier kind as data (`contracts/kind-facts.ts`). */
import type { KindFacts } from '../../contracts/kind-facts';
import type { PevEndReason } from '../../contracts/pev-progress';

export const PEV_FACTS: KindFacts = {
  name: 'pev',
  workflowType: 'pevAgentWorkflow',
  // The planner and the verifier cannot call a tool to read a masked result back.
  masks: false,
  ownPrompts: 'each role has its own prompt (pev.businessContext, pev.promptsDir)',
  callSettings: 'sampling',
  endReasons: ['max_cycles', 'todo_failed', 'unverified', 'plan_not_confirmed'] satisfies Exclude<
    PevEndReason,
    'completed'
  >[],
  answerRoles: { planning: 'planner', executing: 'executor', verifying: 'verifier' },
};
