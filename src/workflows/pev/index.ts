export { pevAgentWorkflow, pevKind } from './pev-workflow';
export { roleTurn, trace, type PevContext } from './role-turn';
export { askRole, planningPhase, verifyingPhase, type Structured } from './phases';
export { executingPhase } from './executing';
