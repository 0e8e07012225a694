export { runAgent, type AgentKind } from './run-agent';
export { agentTurn, type TurnHooks, type TurnPoint, type TurnResult } from './turn';
export {
  startConversation,
  finish,
  endIfStoppedOrLimited,
  shouldContinueAsNew,
  stopRequest,
  type LoopOutcome,
} from './run-steps';
export { type ModelSeat } from './model-step';
export { appendDrafts, injectFollowUps } from './user-messages';
export { emit, publishSearchAttributes, showNow, type RunContext } from './run-context';
