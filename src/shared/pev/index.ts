export {
  TODO_STATUSES,
  NEXT_ACTIONS,
  todoSchema,
  plannerResponseSchema,
  executorResponseSchema,
  verifierResponseSchema,
  verifierTaskSchema,
  isVerified,
  type Todo,
  type TodoStatus,
  type NextAction,
  type PlannerResponse,
  type ExecutorResponse,
  type VerifierResponse,
} from './schemas';
export { extractJsonObject, balancedObjectSpan, type ExtractResult, type ExtractMethod } from './extract-json';
export {
  CORE_ROLE_NAMES,
  plannerRole,
  executorRole,
  verifierRole,
  coreRoles,
  withRole,
  roleOf,
  jsonSchemaOf,
  responseFormatOf,
  type CoreRoleName,
  type PevRoleDefinition,
  type RoleRegistry,
} from './roles';
export { parseRoleAnswer, correctiveReask, type ParsedAnswer } from './parse-response';
export { plannerFallback, executorFallback, unverifiedFinalText, unfinishedFinalText } from './fallbacks';
export {
  afterPlannerRound,
  executorOutcome,
  inPriorityOrder,
  nextOpenTodo,
  applyPlan,
  afterVerifier,
  type PlannerDecision,
  type TodoOutcome,
  type VerifierDecision,
} from './decisions';
export {
  DEFAULT_PEV_LIMITS,
  initialProgress,
  type PevPhase,
  type PevTodo,
  type PevLimits,
  type PevProgress,
  type PevTraceEntry,
  type PevEndReason,
  type PlanningEndReason,
  type TodoEndReason,
} from './state';
export {
  BUSINESS_CONTEXT_PLACEHOLDER,
  NO_BUSINESS_CONTEXT,
  renderTemplate,
  systemPromptOf,
  planRecitation,
  plannerTask,
  plannerContinue,
  executorTask,
  verifierTask,
  type PevPrompts,
} from './prompt-template';
export {
  canonicalJson,
  toolCallKey,
  recordToolResult,
  findReusable,
  reuseNote,
  type LedgerEntry,
  type ToolLedger,
} from './tool-dedupe';
export type {
  LoadPevPromptsInput,
  PreparePevPromptsInput,
  PreparedPevPrompts,
  ReuseToolResultInput,
  PevActivities,
} from './activity-types';
export {
  pevProgressQuery,
  decidePlanUpdate,
  type PlanDecisionInput,
  pevOptionProblems,
  resolvePevOptions,
  type PevMode,
  type PevOptions,
  type ResolvedPevOptions,
  type PevState,
  type PevWorkflowInput,
  type PevAgentResult,
  type PevStateView,
} from './contract';
