/**
 * Spans leave the process through the holder's {@link SecretSet}, as activity results and log lines
 * do: a span records what its code saw (an exception's message, an attribute), before the worker's
 * redaction of results and failures has run.
 */
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { SecretSet } from '../common/secrets';

/** The span with every secret replaced in its name, attributes, events and status message. */
export function redactSpan(span: ReadableSpan, secrets: SecretSet): ReadableSpan {
  if (secrets.size === 0) return span;
  const { status } = span;
  return {
    name: secrets.redact(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanId: span.parentSpanId,
    startTime: span.startTime,
    endTime: span.endTime,
    status: status.message === undefined ? status : { ...status, message: secrets.redact(status.message) },
    attributes: secrets.redactValue(span.attributes),
    links: span.links,
    events: span.events.map((event) => ({
      ...event,
      name: secrets.redact(event.name),
      ...(event.attributes ? { attributes: secrets.redactValue(event.attributes) } : {}),
    })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationLibrary: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** An exporter that redacts each span before `inner` sends it. */
export class RedactingSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly secrets: SecretSet,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(
      spans.map((span) => redactSpan(span, this.secrets)),
      resultCallback,
    );
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
