/** The agent's workflow-safe contracts and pure loop logic. */
export * from './activity-types';
export * from './approvals';
export * from './context-plan';
export * from './contracts';
export * from './convert';
export * from './events';
export * from './limits';
export * from './queues';
export * from './resolver';
export * from './state';
export * from './tokens';
export * from './types';
export * from './config';
export * from './watch';
export * from './token-pieces';
export * from './stats';
export * from './trace';
