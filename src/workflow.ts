/**
 * `durable-agents/workflow`: what workflow code may import. The contracts, the pure policy, and
 * the building blocks of the agent workflows (run scaffold, turn steps, PEV phases) another agent
 * kind reuses. Workflow-safe: nothing here loads a Node built-in.
 */
export * from './common';
export * from './contracts';
export * from './policy';
export * as agentSteps from './workflows/agent';
export * as pevSteps from './workflows/pev';
