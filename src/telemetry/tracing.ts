/**
 * The process's OpenTelemetry tracer provider: spans batched to the OTLP/HTTP endpoint of its
 * {@link TracesConfig}, each redacted on the way out. It is registered as the process's global
 * provider (with the W3C propagator and an async-local context), which Temporal's interceptors and
 * the activities' spans use; a process that registered its own first keeps it. One per process.
 *
 * Sending spans is best effort: a collector that is down or does not answer costs a process that
 * ends at most {@link FLUSH_AT_STOP_MS}, never changes what a command or a worker does, and never
 * fails one.
 */
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { SecretSet } from '../common/secrets';
import { SetupError } from '../connection/setup-error';
import { otlpExporterOf, type OtlpHttpTransport } from './otlp-transport';
import { RedactingSpanExporter } from './redacting-exporter';
import { setCurrentTracing, type Tracing } from './current-tracing';
import type { TracesConfig } from './telemetry-config';

/** How long a process that ends (the CLI at exit, a worker that stops) waits for its last spans to be sent. */
export const FLUSH_AT_STOP_MS = 300;

let running:
  { tracing: Tracing; secrets: SecretSet; provider: NodeTracerProvider; transport: OtlpHttpTransport } | undefined;

/** Whether `work` succeeded within `ms` (false when it failed or took longer); never rejects. */
async function settledWithin(work: Promise<unknown>, ms: number | undefined): Promise<boolean> {
  const done = work.then(
    () => true,
    () => false,
  );
  if (ms === undefined) return done;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
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
  const { exporter, transport } = otlpExporterOf(config);
  const processor = new BatchSpanProcessor(new RedactingSpanExporter(exporter, redacted));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  const tracing: Tracing = {
    config,
    resource,
    processor,
    flush: async (withinMs) => {
      const sent = await settledWithin(provider.forceFlush(), withinMs);
      if (!sent && withinMs !== undefined) transport.abandon();
      return sent;
    },
  };
  running = { tracing, secrets: redacted, provider, transport };
  setCurrentTracing(tracing);
  return tracing;
}

/**
 * Sends what is batched, for at most {@link FLUSH_AT_STOP_MS}, and stops the process's tracing (the
 * CLI at exit, the worker process when its worker stopped). Never rejects: what is not sent by then
 * is dropped, and no request to the collector stays open.
 */
export async function stopTracing(): Promise<void> {
  const stopping = running;
  running = undefined;
  setCurrentTracing(undefined);
  if (!stopping) return;
  await settledWithin(stopping.provider.shutdown(), FLUSH_AT_STOP_MS);
  stopping.transport.shutdown();
}
