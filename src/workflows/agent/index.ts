export { reactAgentWorkflow, runAgentWorkflow } from './agent-workflow';
export {
  runAgentLoop,
  startConversation,
  finish,
  fail,
  recordAnswer,
  turnEndHook,
  closeUnanswered,
  shouldContinueAsNew,
  type LoopOutcome,
} from './loop';
export {
  callModelWithFailover,
  compactIfNeeded,
  resolveModel,
  modelFailureOf,
  type ModelCallOverrides,
} from './model-step';
export { runToolCalls, SKIPPED_BY_STEERING, SKIPPED_BY_STOP, type ToolStepOutcome } from './tool-step';
export { appendDrafts, injectFollowUps, injectSteering } from './user-messages';
export { createAgentIO, type AgentIO } from './agent-io';
export { emit, newRunContext, publishSearchAttributes, workflowNow, type RunContext } from './run-context';
export { registerHandlers } from './handlers';
