/**
 * The run's own spans and its end as a metric (docs/observability.md): a span for the run, each
 * turn and each wait for approvals. They are made with the tracer Temporal's workflow interceptors
 * register in the sandbox (`workflows/tracing-interceptors.ts`): span ids come from the workflow's
 * seeded randomness and times from workflow time, so a replay makes the same spans again, and the
 * worker's sink, which the SDK does not call while a workflow replays, exports each once. In a
 * run whose start carries no trace context they are the OpenTelemetry API's no-ops.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import { describeTracedRun, runIsTraced } from '../tracing-interceptors';
import { proxySinks, workflowInfo } from '@temporalio/workflow';
import {
  AGENT_ATTR,
  GEN_AI,
  SPAN,
  fleetAttributes,
  fleetLabels,
  type RunMetricsSinks,
} from '../../contracts/telemetry';
import type { AgentState } from '../../contracts/agent-run';
import type { RunFeature } from '../agent/feature';

/** The span of an untraced run: records nothing, as the OpenTelemetry API's no-op span, without loading the API. */
const NO_SPAN: Span = {
  spanContext: () => ({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }),
  setAttribute: () => NO_SPAN,
  setAttributes: () => NO_SPAN,
  addEvent: () => NO_SPAN,
  addLink: () => NO_SPAN,
  addLinks: () => NO_SPAN,
  setStatus: () => NO_SPAN,
  updateName: () => NO_SPAN,
  end: () => undefined,
  isRecording: () => false,
  recordException: () => undefined,
};

/**
 * `fn` in a span with the run's attributes and its `own` when the run is traced; otherwise with
 * {@link NO_SPAN}, so an untraced run never evaluates the OpenTelemetry API (each run evaluates its
 * own copy of the modules it loads).
 */
function inSpan<T>(state: AgentState, name: string, own: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!runIsTraced()) return fn(NO_SPAN);
  // A module of the bundle, evaluated on first use; the workflow rule against `require` is about
  // loading modules from outside it.
  // eslint-disable-next-line no-restricted-globals, @typescript-eslint/no-require-imports
  const traced = require('../../common/in-span') as typeof import('../../common/in-span');
  return traced.inSpan(name, { attributes: { ...runAttributes(state), ...own } }, fn);
}

/** The agent's name: what its parent calls a sub-agent, else the run's kind. */
const agentName = (state: AgentState): string => state.config.parent?.agent ?? state.config.kind;

/** What every span of a run names, its activities' included: its id, kind, agent name and tenant. */
function runAttributes(state: AgentState): Record<string, string> {
  const { config } = state;
  return {
    [AGENT_ATTR.runId]: workflowInfo().workflowId,
    [AGENT_ATTR.kind]: config.kind,
    [GEN_AI.agentName]: agentName(state),
    ...fleetAttributes(config.fleet),
  };
}

/** The run's span (`invoke_agent {agent name}`), one per workflow run: continue-as-new starts the next. */
function runSpan<T>(state: AgentState, fn: (span: Span) => Promise<T>): Promise<T> {
  const model = state.resolver.current;
  describeTracedRun(runAttributes(state));
  return inSpan(
    state,
    `${SPAN.run} ${agentName(state)}`,
    {
      [GEN_AI.operation]: 'invoke_agent',
      [GEN_AI.agentId]: workflowInfo().workflowId,
      [GEN_AI.conversationId]: state.conversationId,
      [GEN_AI.provider]: model.provider,
      [GEN_AI.requestModel]: model.model,
    },
    fn,
  );
}

/** What the run's span says when the run ends or hands over: its totals and why. */
function endRunSpan(span: Span, state: AgentState, outcome: string): void {
  span.setAttributes({
    [AGENT_ATTR.stopReason]: outcome,
    [AGENT_ATTR.turn]: state.turn,
    [AGENT_ATTR.costUsd]: state.cost.total,
    [GEN_AI.inputTokens]: state.usage.inputTokens,
    [GEN_AI.outputTokens]: state.usage.outputTokens,
    [GEN_AI.cacheReadTokens]: state.usage.cacheReadTokens,
    [GEN_AI.responseModel]: state.resolver.current.model,
  });
}

/** Counts an ended run by stop reason (the SDK skips the sink while replaying). */
function countEndedRun(state: AgentState): void {
  proxySinks<RunMetricsSinks>().runMetrics.runEnded({
    stop_reason: state.stopReason ?? 'completed',
    agent_kind: state.config.kind,
    ...fleetLabels(state.config.fleet),
  });
}

/** The run's spans (the run, each turn, each wait for decisions) and its end as a metric. */
export const spans: RunFeature = {
  name: 'spans',
  aroundRun: ({ state }, body) =>
    !runIsTraced()
      ? body()
      : runSpan(state, async (span) => {
          const ended = await body();
          endRunSpan(span, state, ended === 'continue_as_new' ? ended : (state.stopReason ?? 'completed'));
          return ended;
        }),
  // A turn's span: its number, and the pev role that takes it.
  aroundTurn: ({ state }, role, body) =>
    inSpan(state, SPAN.turn, { [AGENT_ATTR.turn]: state.turn, ...(role ? { [AGENT_ATTR.role]: role } : {}) }, body),
  // A wait for decisions on its tools' calls (approvals, or client tools' results); the body returns how it ended.
  aroundWait: ({ state }, wait, body) =>
    inSpan(
      state,
      wait.approvals ? SPAN.approvalWait : SPAN.clientToolWait,
      { [AGENT_ATTR.turn]: state.turn, [AGENT_ATTR.approvalTools]: wait.tools },
      async (span) => {
        const outcome = await body();
        span.setAttribute(AGENT_ATTR.approvalOutcome, outcome);
        return outcome;
      },
    ),
  ended: ({ state }) => countEndedRun(state),
};
