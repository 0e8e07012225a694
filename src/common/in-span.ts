/**
 * A span around a piece of work, for the workflow's spans and the activities' alike. A failed span
 * names the failure's type (its `type`, else its class), never its message, which may quote content.
 */
import {
  SpanStatusCode,
  context,
  createContextKey,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
} from '@opentelemetry/api';

/** Where a context holds the span attributes of the run its work is for. */
const RUN_ATTRIBUTES = createContextKey('durable-agents run attributes');

/** `parent` holding a run's span attributes, which every span {@link inSpan} makes inside it carries. */
export const withRunAttributes = (parent: Context, attributes: Attributes): Context =>
  parent.setValue(RUN_ATTRIBUTES, attributes);

/** The failure's type for a span's status. */
function failureName(err: unknown): string {
  if (typeof err !== 'object' || err === null) return 'error';
  const { type, name } = err as { type?: unknown; name?: unknown };
  return typeof type === 'string' && type ? type : typeof name === 'string' ? name : 'error';
}

/** Runs `fn` in a span of the project's tracer, active while it runs and ended when it settles. */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const run = context.active().getValue(RUN_ATTRIBUTES) as Attributes | undefined;
  const spanOptions = run ? { ...options, attributes: { ...run, ...options.attributes } } : options;
  return trace.getTracer('durable-agents').startActiveSpan(name, spanOptions, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: failureName(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}
