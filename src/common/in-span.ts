/**
 * A span around a piece of work, for the workflow's spans and the activities' alike. A failed span
 * names the failure's type (its `type`, else its class), never its message, which may quote content.
 */
import { SpanStatusCode, trace, type Span, type SpanOptions } from '@opentelemetry/api';

/** The failure's type for a span's status. */
export function failureName(err: unknown): string {
  if (typeof err !== 'object' || err === null) return 'error';
  const { type, name } = err as { type?: unknown; name?: unknown };
  return typeof type === 'string' && type ? type : typeof name === 'string' ? name : 'error';
}

/** Runs `fn` in a span of the project's tracer, active while it runs and ended when it settles. */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer('durable-agents').startActiveSpan(name, options, async (span) => {
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
