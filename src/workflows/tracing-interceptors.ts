/**
 * The workflow interceptors every bundle of the project's workflows installs (see
 * src/common/preloaded-modules.ts). A run whose start carries a trace context (its starter traces:
 * the CLI or a client with the OpenTelemetry variables set, a traced parent, the run it continued
 * from) gets Temporal's OpenTelemetry interceptors, which continue that trace in the run, give the
 * run's own spans (`features/spans.ts`) their tracer and send every span through the worker's
 * `exporter` sink. Any other run loads none of OpenTelemetry's SDK: every run evaluates its own copy
 * of the modules it loads, and the SDK's were most of what a run held in memory. The choice is read
 * from the start event, so every replay of a run makes it again. Not a workflow.
 */
import {
  defaultPayloadConverter,
  type Payload,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { RUN_HEADER, TRACE_HEADER } from '../contracts/telemetry';

type Traced = Required<Pick<WorkflowInterceptors, 'inbound' | 'outbound' | 'internals'>>;
type Part = keyof Traced;

/** Temporal's OpenTelemetry interceptors, loaded only now (a static import would load them into every run). */
function openTelemetryInterceptors(): Traced {
  // A module of the bundle, evaluated on first use; the workflow rule against `require` is about
  // loading modules from outside it.
  // eslint-disable-next-line no-restricted-globals, @typescript-eslint/no-require-imports
  const otel = require('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors') as {
    interceptors: () => Traced;
  };
  return otel.interceptors();
}

type Call = (input: unknown, next: (input: unknown) => unknown) => unknown;

/** Each of `methods` calling the traced run's interceptor when it has one, else the next one. */
function passThrough(run: { traced?: Traced }, part: Part, methods: readonly string[]): Record<string, Call> {
  return Object.fromEntries(
    methods.map((method): [string, Call] => [
      method,
      (input, next) => {
        const interceptor = run.traced?.[part][0] as Record<string, Call | undefined> | undefined;
        const own = interceptor?.[method];
        return own ? own.call(interceptor, input, next) : next(input);
      },
    ]),
  );
}

const INBOUND = ['execute', 'handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery'] as const;
const OUTBOUND = [
  'scheduleActivity',
  'scheduleLocalActivity',
  'startNexusOperation',
  'startChildWorkflowExecution',
  'continueAsNew',
  'signalWorkflow',
  'getLogAttributes',
  'getMetricTags',
] as const;

/** This run's state: each run evaluates its own copy of this module. */
const run: { traced?: Traced; attributes?: Payload } = {};

/** Whether this run is traced: its start carried a trace context (known once it executes). */
export const runIsTraced = (): boolean => run.traced !== undefined;

/**
 * Names the span attributes of this run (its id, kind, agent name, tenant) that a traced run's
 * activities carry from now on ({@link RUN_HEADER}), for the spans of their calls. An untraced run's
 * activities carry nothing more.
 */
export function describeTracedRun(attributes: Record<string, string>): void {
  if (run.traced) run.attributes = defaultPayloadConverter.toPayload(attributes);
}

/** An activity's input with the run's attributes in its headers, once the run has named them. */
function withRunHeader(input: unknown): unknown {
  if (!run.attributes) return input;
  const { headers } = input as { headers: Record<string, Payload> };
  return { ...(input as object), headers: { ...headers, [RUN_HEADER]: run.attributes } };
}

export const interceptors = (): WorkflowInterceptors => {
  const inbound = passThrough(run, 'inbound', INBOUND);
  const execute = inbound.execute;
  inbound.execute = (input, next) => {
    if ((input as { headers: Record<string, unknown> }).headers[TRACE_HEADER] !== undefined)
      run.traced = openTelemetryInterceptors();
    return execute(input, next);
  };
  const outbound = passThrough(run, 'outbound', OUTBOUND);
  for (const method of ['scheduleActivity', 'scheduleLocalActivity']) {
    const schedule = outbound[method];
    outbound[method] = (input, next) => schedule(withRunHeader(input), next);
  }
  return {
    inbound: [inbound as WorkflowInboundCallsInterceptor],
    outbound: [outbound as WorkflowOutboundCallsInterceptor],
    internals: [passThrough(run, 'internals', ['dispose']) as WorkflowInternalsInterceptor],
  };
};
