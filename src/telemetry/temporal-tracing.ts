/**
 * Temporal's OpenTelemetry interceptors (`@temporalio/interceptors-opentelemetry`) as the project
 * wires them: the client's carries the caller's trace context into the run's start, signals and
 * updates; the workflow's (bundled with the workflow code, see `common/preloaded-modules.ts`) and
 * the activities' continue it. Workflow spans leave through the worker's `exporter` sink, which the
 * SDK does not call while a workflow replays, so a restarted worker exports each span once.
 */
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { Tracing } from './current-tracing';
import { withRunAttributes } from '../common/in-span';
import { AGENT_ATTR, RUN_HEADER, TRACE_HEADER } from '../contracts/telemetry';

/** The client interceptors that start a run inside the caller's active trace. */
export const tracingClientInterceptors = (): WorkflowClientInterceptor[] => [
  new OpenTelemetryWorkflowClientInterceptor(),
];

/** The span attributes of an activity's run: its workflow id, and what the run named ({@link RUN_HEADER}). */
function runAttributesOf(headers: Headers, workflowId: string | undefined): Record<string, string> {
  const named = headers[RUN_HEADER];
  return {
    ...(workflowId ? { [AGENT_ATTR.runId]: workflowId } : {}),
    ...(named ? defaultPayloadConverter.fromPayload<Record<string, string>>(named) : {}),
  };
}

/**
 * The activity interceptors: a span per attempt of a traced run's activity, continuing the
 * workflow's context alone (not whatever span the worker's process has active), with the run's
 * attributes for the spans of its calls; trace ids in log lines. An activity whose run does not
 * trace makes no span at all: tracing is suppressed while it runs, for the SDKs and clients it calls too.
 */
export const tracingActivityInterceptors = (): ActivityInterceptorsFactory[] => [
  (ctx) => {
    const traced = new OpenTelemetryActivityInboundInterceptor(ctx);
    return {
      inbound: {
        execute: (input, next) => {
          if (input.headers[TRACE_HEADER] === undefined)
            return context.with(suppressTracing(ROOT_CONTEXT), () => next(input));
          const run = runAttributesOf(input.headers, ctx.info.workflowExecution?.workflowId);
          return context.with(withRunAttributes(ROOT_CONTEXT, run), () => traced.execute(input, next));
        },
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
