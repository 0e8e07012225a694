/**
 * What the worker's model and tool calls tell an operator (docs/observability.md): a span per model
 * call and per tool call (GenAI semantic conventions), child of the activity's span, and their
 * metrics through the SDK runtime's metric meter (its Prometheus endpoint), labelled as the SDK's
 * own series are. Spans carry no message body unless the operator opted in (`captureContent`).
 * Without a tracer provider or a metrics endpoint, both are the SDK's no-ops.
 */
import { INVALID_SPAN_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { MetricMeter, MetricTags } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { inSpan } from '../common/in-span';
import { GEN_AI, AGENT_ATTR, METRIC, METRIC_LABEL, SPAN } from '../contracts/telemetry';
import type { AssistantMessage, ModelRequest } from '../contracts/message-model';
import { modelRefOf } from '../policy/model-ref';
import { activityContext } from './heartbeat';

/** Characters of one content attribute (opt-in), so a long transcript cannot swamp a span. */
const CONTENT_ATTRIBUTE_CHARS = 32_000;

const content = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > CONTENT_ATTRIBUTE_CHARS ? `${text.slice(0, CONTENT_ATTRIBUTE_CHARS)}…` : text;
};

/**
 * The run's tenant, which its activities carry as their fairness key; and the meter of the
 * project's series. The activity context's own meter labels series `taskQueue` and `activityType`,
 * beside the SDK's `task_queue` and `activity_type`: this one labels them as the SDK's series are.
 */
function activityScope(): { meter?: MetricMeter; tenant?: string; activity?: MetricTags } {
  const info = activityContext()?.info;
  if (!info) return {};
  const tenant = info.priority?.fairnessKey;
  return {
    meter: Runtime.instance().metricMeter.withTags({ [METRIC_LABEL.namespace]: info.namespace }),
    activity: { [METRIC_LABEL.taskQueue]: info.taskQueue, [METRIC_LABEL.activityType]: info.activityType },
    ...(tenant ? { tenant } : {}),
  };
}

const seconds = (ms: number): number => ms / 1000;

/** A span of a call the worker makes to a provider or a tool, in a traced run's activity; none in an untraced one. */
const clientSpan = <T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> =>
  trace.getActiveSpan()
    ? inSpan(name, { kind: SpanKind.CLIENT, attributes }, fn)
    : fn(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));

/** What a model call's observation needs from the call site. */
export interface ModelCallObservation {
  request: ModelRequest;
  /** Put the request's messages and the answer in the span. */
  captureContent?: boolean;
}

/**
 * Runs one model call (`call` gets a function to say its first token arrived) in a `chat {model}`
 * span, and records its tokens, cost, latency and time to first token.
 */
export function observeModelCall(
  { request, captureContent }: ModelCallObservation,
  call: (firstToken: () => void) => Promise<AssistantMessage>,
): Promise<AssistantMessage> {
  const model = modelRefOf(request.model);
  const { meter, tenant, activity } = activityScope();
  const labels: MetricTags = {
    ...activity,
    provider: model.provider,
    model: model.model,
    ...(tenant ? { tenant } : {}),
  };
  const attributes: Attributes = {
    [GEN_AI.operation]: 'chat',
    [GEN_AI.provider]: model.provider,
    [GEN_AI.requestModel]: model.model,
    ...(request.options?.maxTokens !== undefined ? { [GEN_AI.maxTokens]: request.options.maxTokens } : {}),
    ...(request.options?.temperature !== undefined ? { [GEN_AI.temperature]: request.options.temperature } : {}),
    ...(tenant ? { [AGENT_ATTR.tenant]: tenant } : {}),
    ...(captureContent
      ? {
          [GEN_AI.inputMessages]: content(request.messages),
          ...(request.systemPrompt ? { [GEN_AI.systemInstructions]: content(request.systemPrompt) } : {}),
        }
      : {}),
  };
  return clientSpan(`${SPAN.chat} ${model.model}`, attributes, async (span) => {
    const started = performance.now();
    let firstTokenMs: number | undefined;
    const firstToken = () => (firstTokenMs ??= performance.now() - started);
    const duration = meter?.createHistogram(METRIC.modelDuration, 'float', 's', 'Model call duration in seconds');
    let message: AssistantMessage;
    try {
      message = await call(firstToken);
    } catch (err) {
      duration?.record(seconds(performance.now() - started), { ...labels, outcome: 'error' });
      throw err;
    }
    duration?.record(seconds(performance.now() - started), { ...labels, outcome: 'ok' });
    const { usage, cost } = message;
    span.setAttributes({
      [GEN_AI.responseModel]: message.model || model.model,
      ...(message.responseId ? { [GEN_AI.responseId]: message.responseId } : {}),
      [GEN_AI.finishReasons]: [message.stopReason],
      [GEN_AI.inputTokens]: usage.inputTokens,
      [GEN_AI.outputTokens]: usage.outputTokens,
      [GEN_AI.cacheReadTokens]: usage.cacheReadTokens,
      [GEN_AI.cacheWriteTokens]: usage.cacheWriteTokens,
      [AGENT_ATTR.costUsd]: cost.total,
      ...(firstTokenMs !== undefined ? { [AGENT_ATTR.timeToFirstTokenMs]: Math.round(firstTokenMs) } : {}),
      ...(captureContent ? { [GEN_AI.outputMessages]: content(message.content) } : {}),
    });
    if (meter) {
      const tokens = meter.createCounter(METRIC.tokens, 'tokens', 'Model tokens');
      const counts = {
        input: usage.inputTokens,
        output: usage.outputTokens,
        cache_read: usage.cacheReadTokens,
        cache_write: usage.cacheWriteTokens,
      };
      for (const [type, count] of Object.entries(counts)) if (count > 0) tokens.add(count, { ...labels, type });
      meter.createHistogram(METRIC.costUsd, 'float', 'USD', 'Model call cost').record(cost.total, labels);
      if (firstTokenMs !== undefined)
        meter
          .createHistogram(METRIC.timeToFirstToken, 'float', 's', "Seconds to a model call's first token")
          .record(seconds(firstTokenMs), labels);
    }
    return message;
  });
}

/** What a tool call's observation needs from the call site. */
export interface ToolCallObservation {
  name: string;
  toolCallId: string;
  args: Record<string, unknown>;
  captureContent?: boolean;
}

/**
 * Runs one tool call in an `execute_tool {name}` span and counts it (and its error result) by tool:
 * a quick tool runs inside the model call's activity, so the series name no activity or queue.
 */
export function observeToolCall<T extends { isError: boolean; content?: string }>(
  { name, toolCallId, args, captureContent }: ToolCallObservation,
  call: () => Promise<T>,
): Promise<T> {
  const { meter } = activityScope();
  const attributes: Attributes = {
    [GEN_AI.operation]: 'execute_tool',
    [GEN_AI.toolName]: name,
    [GEN_AI.toolCallId]: toolCallId,
    [GEN_AI.toolType]: 'function',
    ...(captureContent ? { [GEN_AI.toolArguments]: content(args) } : {}),
  };
  return clientSpan(`${SPAN.tool} ${name}`, attributes, async (span) => {
    meter?.createCounter(METRIC.toolCalls, 'calls', 'Tool calls').add(1, { tool: name });
    const errors = () =>
      meter?.createCounter(METRIC.toolErrors, 'calls', 'Tool calls that failed').add(1, { tool: name });
    let out: T;
    try {
      out = await call();
    } catch (err) {
      errors();
      throw err;
    }
    if (out.isError) errors();
    span.setAttributes({
      [AGENT_ATTR.toolError]: out.isError,
      ...(captureContent && out.content !== undefined ? { [GEN_AI.toolResult]: content(out.content) } : {}),
    });
    if (out.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool result is an error' });
    return out;
  });
}
