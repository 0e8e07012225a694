/**
 * `durable-agents/workflow`: what workflow code of a kind of its own needs (docs/design.md, Package
 * entries): the run scaffold and the turn function it is written with, the steps a driver takes,
 * the contracts it reads and returns, and the built-in kinds. Workflow-safe: nothing here loads a
 * Node built-in.
 */
export { runAgent, type AgentKind } from './workflows/agent/run-agent';
export { agentTurn, type TurnHooks, type TurnPoint, type TurnResult } from './workflows/agent/turn';
export { startConversation } from './workflows/agent/pinning';
export {
  endIfStoppedOrLimited,
  finish,
  shouldContinueAsNew,
  stopRequest,
  type LoopOutcome,
} from './workflows/agent/run-steps';
export { appendDrafts, injectFollowUps } from './workflows/agent/user-messages';
export {
  emit,
  publishSearchAttributes,
  updateCurrentDetails,
  type CurrentStep,
  type RunContext,
} from './workflows/agent/run-context';
export type { ModelResolver } from './workflows/agent/model-resolver';
export type { ModelCallOverrides } from './workflows/agent/model-step';
export { runChild, type ChildOutcome, type ChildStart } from './workflows/features/sub-agents';
export { reactAgentWorkflow, reactKind } from './workflows/react';
export { pevAgentWorkflow, pevKind } from './workflows/pev';
export type { AgentWorkflowInput } from './contracts/agent-workflows';
export type { AgentOptions } from './contracts/agent-options';
export type { AgentConfig, AgentLimits, PlanItem } from './contracts/run-spec';
export type { AgentResult, AgentState, AgentStateView, MessageMeta, ToolCallRequest } from './contracts/agent-run';
export type { AgentStopReason } from './contracts/run-status';
export type { AgentEvent } from './contracts/agent-events';
export type { KindFacts } from './contracts/kind-facts';
export type { MessageDraft } from './contracts/message-drafts';
export type { CallSettings } from './contracts/message-model';
export type { ModelRef } from './contracts/model-ref';
