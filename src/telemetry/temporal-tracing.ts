/**
 * Temporal's OpenTelemetry interceptors (`@temporalio/interceptors-opentelemetry`) as the project
 * wires them: the client's carries the caller's trace context into the run's start, signals and
 * updates; the workflow's (bundled with the workflow code, see `common/preloaded-modules.ts`) and
 * the activities' continue it. Workflow spans leave through the worker's `exporter` sink, which the
 * SDK does not call while a workflow replays, so a restarted worker exports each span once.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { Tracing } from './tracing';
import { TRACE_HEADER } from '../contracts/telemetry';

/** The client interceptors that start a run inside the caller's active trace. */
export const tracingClientInterceptors = (): WorkflowClientInterceptor[] => [
  new OpenTelemetryWorkflowClientInterceptor(),
];

/**
 * The activity interceptors: a span per attempt of a traced run's activity, continuing the
 * workflow's context (an activity whose workflow does not trace makes none); trace ids in log lines.
 */
export const tracingActivityInterceptors = (): ActivityInterceptorsFactory[] => [
  (ctx) => {
    const traced = new OpenTelemetryActivityInboundInterceptor(ctx);
    return {
      inbound: {
        execute: (input, next) =>
          input.headers[TRACE_HEADER] === undefined ? next(input) : traced.execute(input, next),
      },
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    };
  },
];

/**
 * The worker's `exporter` sink. With tracing, the workflows' spans go to its processor carrying the
 * run's ids and type only: the SDK's own sink would copy the whole workflow info into every span,
 * memo and search attributes (the task's first line) included. Without, it drops them (the bundle
 * always has the workflow interceptors, so a worker without tracing still runs the same code).
 */
export function workflowSpanSink(tracing: Tracing | undefined): InjectedSinks<OpenTelemetrySinks> {
  if (!tracing) return { exporter: { export: { fn: () => undefined } } };
  const sink = makeWorkflowExporter(tracing.processor, tracing.resource).export;
  return {
    exporter: {
      export: {
        ...sink,
        fn: (info, spans) =>
          sink.fn(
            {
              workflowId: info.workflowId,
              runId: info.runId,
              workflowType: info.workflowType,
              taskQueue: info.taskQueue,
              namespace: info.namespace,
            } as typeof info,
            spans,
          ),
      },
    },
  };
}
