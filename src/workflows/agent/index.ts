export { runAgent, type AgentKind } from './run-agent';
export { agentTurn, type TurnHooks, type TurnPoint, type TurnResult } from './turn';
export { finish, endIfStoppedOrLimited, shouldContinueAsNew, stopRequest, type LoopOutcome } from './run-steps';
export { startConversation } from './pinning';
export { refuse } from './handlers';
export { type ModelResolver } from './model-resolver';
export { appendDrafts, injectFollowUps } from './user-messages';
export { emit, publishSearchAttributes, updateCurrentDetails, type CurrentStep, type RunContext } from './run-context';
export type { RunFeature } from './feature';
