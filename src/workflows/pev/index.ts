export { pevAgentWorkflow } from './workflow';
export { roleTurn, type PevContext, type TurnResult } from './role-turn';
