export { pevAgentWorkflow } from './pev-workflow';
export { roleTurn, endIfStoppedOrLimited, type PevContext, type TurnResult } from './role-turn';
export { askRole, planningPhase, executingPhase, verifyingPhase, type Structured } from './phases';
