/** Pure decisions over the contracts. Workflow-safe. */
export * from './agent-config';
export * from './agent-state';
export * from './approval-rules';
export * from './context-plan';
export * from './event-log';
export * from './limits';
export * from './llm-failure-policy';
export * from './model-ref';
export * from './model-registry';
export * from './provider-view';
export * from './queues';
export * from './resolver';
export * from './run-stats';
export * from './token-estimate';
export * from './tool-selection';
export * from './pev';
