/** `durable-agents` and `durable-agents/client`: start, steer, approve, watch and inspect agent runs. */
export {
  AgentClient,
  approvalArgsHash,
  type AgentClientOptions,
  type AgentListEntry,
  type AnswerItem,
  type AnswerRole,
  type ClosedRunView,
  type EndedFromOutsideView,
  type DeepPartial,
  type ForkOptions,
  type ListFilters,
  type PreparedStart,
  type RunWorkers,
  type StartAgentOptions,
  type WatchOptions,
} from './client/agent-client';
export {
  AgentClientError,
  NoWorkerError,
  PayloadTooLargeError,
  RunClosedError,
  type ClosedAs,
} from './client/client-errors';
export { AGENT_STATUSES, listQuery } from './client/list-runs';
export {
  approvalsInbox,
  pendingApproval,
  pendingApprovalsOf,
  type ApprovalsInbox,
  type InboxOptions,
  type PendingApprovalEntry,
} from './client/approvals';
export {
  AgentSchedules,
  OVERLAP_POLICIES,
  type AgentScheduleView,
  type CreateScheduleOptions,
  type OverlapPolicy,
  type ScheduledRun,
  type ScheduleTiming,
} from './client/schedules';
export type { TenantBudgetSet } from './client/tenant-budgets';
export type { RunScore } from './contracts/run-scores';
export {
  BUDGET_PERIODS,
  type BudgetAmount,
  type BudgetPeriod,
  type LedgerView,
  type TenantBudgetLimits,
} from './contracts/tenant-budget';
export { DEFAULT_PAYLOAD_LIMIT_BYTES } from './client/payload-limits';
export {
  connectClient,
  connectionSettingsFromEnv,
  unreachableMessage,
  DEFAULT_ADDRESS,
  PAYLOAD_LIMIT_ENV,
  type ConnectionSettings,
} from './connection/connection-settings';
export { SetupError, UnreachableServerError } from './connection/setup-error';
export { parseModelRef, modelRefOf } from './policy/model-ref';
export { modelLabel, type ModelName, type ModelRef } from './contracts/model-ref';
export { readRunMessages } from './client/run-messages';
export { extract, extractWithMethod, ExtractError } from './policy/extract-answer';
export type { ExtractMethod } from './policy/extract-json';
export {
  BUILT_IN_KINDS,
  KindRegistry,
  keyValues,
  kindFlag,
  modelSpec,
  oneOf,
  positiveInteger,
  type KindEdge,
  type KindFlag,
  type KindStartOptions,
  type KindWait,
} from './kinds';
export type { AgentResult, AgentStateView } from './contracts/agent-run';
export type { AgentConfig } from './contracts/run-spec';
export type { AgentWorkflowInput } from './contracts/agent-workflows';
export { ANSWERS_TOPIC } from './client/watch-answers';
export { CHILDREN_TOPIC, type ChildEventItem, type ChildOfWatch } from './client/watch-children';
export type { RunMessage, RunMessageRole, RunToolCall } from './contracts/run-message';
export type { ConversationReader, ConversationLog, LogEntry, SummaryRecord } from './contracts/conversation-log';
export { followTokens, type FollowTokensOptions } from './client/token-tail';
export type {
  CallRecord,
  EventsRecord,
  StoredCallRecord,
  StoredTokenRecord,
  StreamCall,
  TokenRead,
  TokenRecord,
  TokenStreamReader,
} from './contracts/token-stream';
export {
  childTraces,
  needsStoredSteps,
  storedSteps,
  traceOf,
  traceSteps,
  type ChildTrace,
  type RunTrace,
  type TraceStep,
  type TraceToolCall,
} from './client/trace';
