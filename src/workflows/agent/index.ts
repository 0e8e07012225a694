export { runAgent, type AgentKind } from './run-agent';
export { turnEndHook } from './app-hooks';
export { agentTurn, recordAnswer, closeUnanswered, type TurnHooks, type TurnPoint, type TurnResult } from './turn';
export {
  startConversation,
  RunEnded,
  finish,
  fail,
  endIfStoppedOrLimited,
  shouldContinueAsNew,
  stopRequest,
  type LoopOutcome,
} from './run-steps';
export {
  callModelWithFailover,
  resolveModel,
  runResolver,
  modelFailureOf,
  type ModelAnswer,
  type ModelCallOverrides,
  type ModelResolver,
} from './model-step';
export { fitContext, currentContextTokens, type ContextFit } from './context-step';
export { runToolCalls, SKIPPED_BY_STEERING, SKIPPED_BY_STOP, type ToolStepOutcome } from './tool-step';
export { runChild, type ChildOutcome, type ChildStart } from './sub-agent-step';
export { appendDrafts, injectFollowUps, injectSteering } from './user-messages';
export { createAgentIO, type AgentIO } from './agent-io';
export {
  emit,
  newRunContext,
  publishSearchAttributes,
  updateCurrentDetails,
  workflowNow,
  type RunContext,
  type CurrentStep,
} from './run-context';
export { registerHandlers } from './handlers';
