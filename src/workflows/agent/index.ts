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
export { type ModelResolver } from './model-resolver';
export { runChild, type ChildOutcome, type ChildStart } from './sub-agent-step';
export { appendDrafts, injectFollowUps } from './user-messages';
export { emit, publishSearchAttributes, updateCurrentDetails, type CurrentStep, type RunContext } from './run-context';
