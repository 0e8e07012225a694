/**
 * The names of what runs export to an operator's observability stack (docs/observability.md): span
 * names and attributes (OpenTelemetry's GenAI semantic conventions, then the project's own) and
 * the metrics on the worker's Prometheus endpoint. Workflow-safe: the workflow's spans and metrics
 * use them as the activities' do.
 */
import type { FleetSpec } from './run-spec';

/**
 * The header Temporal's OpenTelemetry interceptors carry a trace context in (their `TRACE_HEADER`).
 * A run is traced when its start carries it, and so are its activities: a run whose starter does not
 * trace makes no spans (docs/observability.md).
 */
export const TRACE_HEADER = '_tracer-data';

/**
 * The header a traced run's activities carry the run's span attributes in (its id, kind, agent name
 * and tenant), so that the spans of its model and tool calls name the run as the workflow's own do.
 */
export const RUN_HEADER = '_durable-agents-run';

/** Span names: GenAI's `{operation} {subject}` where the conventions name one, else the project's. */
export const SPAN = {
  /** A run of an agent (one per workflow run; continue-as-new starts the next). */
  run: 'invoke_agent',
  /** One model turn of the agent loop. */
  turn: 'turn',
  /** A model call (one per attempt). */
  chat: 'chat',
  /** A tool call on the worker. */
  tool: 'execute_tool',
  /** A wait for people's approvals (and any client tool results) before a turn's tools run. */
  approvalWait: 'await_approval',
  /** A wait for client tool results alone. */
  clientToolWait: 'await_client_tools',
} as const;

/** The GenAI semantic-convention attributes the spans carry. */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  maxTokens: 'gen_ai.request.max_tokens',
  temperature: 'gen_ai.request.temperature',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  /** Opt-in content (see `captureContent`): the request's messages, the answer, a tool's arguments and result. */
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
} as const;

/** The project's own span attributes. */
export const AGENT_ATTR = {
  runId: 'durable_agents.run_id',
  kind: 'durable_agents.agent_kind',
  /** The pev role that takes a turn (planner, executor, verifier). */
  role: 'durable_agents.pev_role',
  turn: 'durable_agents.turn',
  tenant: 'durable_agents.tenant',
  costUsd: 'durable_agents.cost_usd',
  stopReason: 'durable_agents.stop_reason',
  /** Time to the first streamed event of a model call, in ms. */
  timeToFirstTokenMs: 'durable_agents.time_to_first_token_ms',
  toolError: 'durable_agents.tool.is_error',
  approvalTools: 'durable_agents.approval.tools',
  approvalOutcome: 'durable_agents.approval.outcome',
} as const;

/**
 * Metrics on the worker's Prometheus endpoint, beside the SDK's own (`temporal_*`), named as
 * Prometheus names them: counters end in `_total`, durations are seconds in `_seconds`.
 */
export const METRIC = {
  /** Counter, by provider, model, tenant and `type` (input, output, cache_read, cache_write). */
  tokens: 'durable_agents_model_tokens_total',
  /** Histogram (USD per call; its `_sum` is the cost), by provider, model and tenant. */
  costUsd: 'durable_agents_model_cost_usd',
  /** Histogram (seconds), by provider, model, tenant and `outcome` (ok, error). */
  modelDuration: 'durable_agents_model_call_duration_seconds',
  /** Histogram (seconds) to a call's first streamed event, by provider, model and tenant. */
  timeToFirstToken: 'durable_agents_model_time_to_first_token_seconds',
  /** Counter, by tool. */
  toolCalls: 'durable_agents_tool_calls_total',
  /** Counter of calls whose result is an error, by tool. */
  toolErrors: 'durable_agents_tool_errors_total',
  /** Counter of ended runs, by `stop_reason`, `agent_kind` and tenant. */
  runs: 'durable_agents_runs_total',
  /** Gauge: open runs waiting for people, by `wait` ({@link APPROVAL_WAIT}), read from visibility. */
  approvalsWaiting: 'durable_agents_approvals_waiting',
} as const;

/**
 * The labels the project's series share with the SDK's own (`temporal_*`), spelled as the SDK's
 * Prometheus series spell them, so that a query joins the two without relabelling.
 */
export const METRIC_LABEL = {
  namespace: 'namespace',
  taskQueue: 'task_queue',
  activityType: 'activity_type',
  workflowType: 'workflow_type',
} as const;

/** What `durable_agents_approvals_waiting` counts apart: tool calls to approve, and pev plans to decide on. */
export const APPROVAL_WAIT = { toolCall: 'tool_call', plan: 'plan' } as const;

/** Histogram buckets of the project's histograms (seconds, and USD for cost). */
export const METRIC_BUCKETS: Readonly<Record<string, number[]>> = {
  [METRIC.modelDuration]: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  [METRIC.timeToFirstToken]: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  [METRIC.costUsd]: [0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
};

/** A run's place in its fleet as its spans name it. */
export const fleetAttributes = (fleet: FleetSpec | undefined): Record<string, string> =>
  fleet?.tenant ? { [AGENT_ATTR.tenant]: fleet.tenant } : {};

/** A run's place in its fleet as its metrics label it. */
export const fleetLabels = (fleet: FleetSpec | undefined): Record<string, string> =>
  fleet?.tenant ? { tenant: fleet.tenant } : {};

/** The labels of an ended run, which the workflow hands to the worker's {@link RunMetricsSinks}. */
export interface EndedRunLabels {
  stop_reason: string;
  agent_kind: string;
  tenant?: string;
}

/**
 * The worker's sink of the runs' own metrics. A workflow's `metricMeter` labels its series with the
 * SDK's `taskQueue` and `workflowType`; through this sink the worker labels them as the SDK's
 * Prometheus series do ({@link METRIC_LABEL}). The SDK does not call it while a workflow replays.
 */
export type RunMetricsSinks = {
  runMetrics: { runEnded(labels: EndedRunLabels): void };
};
