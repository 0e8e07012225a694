/**
 * `durable-agents/workflow`: what workflow code may import. The contracts, the pure policy, the
 * run scaffold and the turn function (`agentSteps.runAgent`, `agentSteps.agentTurn`) another
 * agent kind is written with, and the two kinds (`reactKind`, `pevKind`) with the PEV phases.
 * Workflow-safe: nothing here loads a Node built-in.
 */
export * from './common';
export * from './contracts';
export * from './policy';
export * as agentSteps from './workflows/agent';
export * as pevSteps from './workflows/pev';
export { reactKind } from './workflows/react';
export { pevKind } from './workflows/pev';
