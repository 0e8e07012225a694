/**
 * The process's OpenTelemetry tracer provider: spans batched to the OTLP/HTTP endpoint of its
 * {@link TracesConfig}, each redacted on the way out. It is registered as the process's global
 * provider (with the W3C propagator and an async-local context), which Temporal's interceptors and
 * the activities' spans use; a process that registered its own first keeps it. One per process.
 */
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { SecretSet } from '../common/secrets';
import { SetupError } from '../connection/setup-error';
import { RedactingSpanExporter } from './redacting-exporter';
import { setCurrentTracing, type Tracing } from './current-tracing';

export type { Tracing } from './current-tracing';
import type { TracesConfig } from './telemetry-config';

let running: { tracing: Tracing; secrets: SecretSet; provider: NodeTracerProvider } | undefined;

function exporterOf(config: TracesConfig) {
  const options = { url: config.url, headers: config.headers };
  return config.protocol === 'http/json' ? new OtlpJsonExporter(options) : new OtlpProtobufExporter(options);
}

/**
 * Starts the process's tracing, or returns the one already started with the same endpoint (adding
 * `secrets` to what it redacts). A second endpoint in one process is refused with a one-line error.
 */
export function startTracing(config: TracesConfig, secrets?: SecretSet): Tracing {
  if (running) {
    if (running.tracing.config.url !== config.url)
      throw new SetupError(
        `this process already sends spans to ${running.tracing.config.url}; one process has one trace endpoint.`,
      );
    if (secrets) running.secrets.add(...secrets.list());
    return running.tracing;
  }
  const redacted = new SecretSet(secrets?.list());
  const resource = Resource.default().merge(
    new Resource({ ...config.resourceAttributes, 'service.name': config.serviceName }),
  );
  const processor = new BatchSpanProcessor(new RedactingSpanExporter(exporterOf(config), redacted));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  const tracing: Tracing = { config, resource, processor, flush: () => provider.forceFlush() };
  running = { tracing, secrets: redacted, provider };
  setCurrentTracing(tracing);
  return tracing;
}

/** The tracing started in this process, if any. */

/** Sends what is batched and stops the process's tracing (the CLI at exit; a worker keeps its own running). */
export async function stopTracing(): Promise<void> {
  const stopping = running;
  running = undefined;
  setCurrentTracing(undefined);
  await stopping?.provider.shutdown();
}
