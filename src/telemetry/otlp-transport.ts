/**
 * The OTLP/HTTP exporter of a process's spans, best effort: OpenTelemetry's OTLP exporter (its
 * serializers, export queue and the standard `OTEL_EXPORTER_OTLP_*` timeout, concurrency and
 * compression settings) over a transport the process can give up on. A collector that is down fails
 * an export at once; one that never answers fails it after the export timeout; and a process that
 * ends abandons what is still in flight ({@link OtlpHttpTransport.abandon}), so no request keeps it
 * alive or delays its end.
 */
import http from 'node:http';
import https from 'node:https';
import { gzipSync } from 'node:zlib';
import {
  OTLPExporterBase,
  createOtlpNetworkExportDelegate,
  getSharedConfigurationDefaults,
  mergeOtlpSharedConfigurationWithDefaults,
  type ExportResponse,
  type IExporterTransport,
} from '@opentelemetry/otlp-exporter-base';
import { getSharedConfigurationFromEnvironment } from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TracesConfig } from './telemetry-config';

/** POSTs of serialized spans to one URL; every request still open can be abandoned. */
export class OtlpHttpTransport implements IExporterTransport {
  readonly #open = new Set<http.ClientRequest>();
  readonly #url: URL;
  readonly #agent: http.Agent;

  constructor(
    url: string,
    private readonly headers: Record<string, string>,
    private readonly gzip: boolean,
  ) {
    this.#url = new URL(url);
    this.#agent = new (this.#url.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true });
  }

  send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    const body = this.gzip ? gzipSync(data) : data;
    return new Promise((resolve) => {
      const request = (this.#url.protocol === 'https:' ? https : http).request(this.#url, {
        method: 'POST',
        agent: this.#agent,
        timeout: timeoutMillis,
        headers: {
          ...this.headers,
          'Content-Length': body.byteLength,
          ...(this.gzip ? { 'Content-Encoding': 'gzip' } : {}),
        },
      });
      const settle = (response: ExportResponse) => {
        this.#open.delete(request);
        resolve(response);
      };
      request.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => settle({ status: 'failure', error }));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          settle(
            status >= 200 && status < 300
              ? { status: 'success', data: Buffer.concat(chunks) }
              : { status: 'failure', error: new Error(`the collector answered HTTP ${status}`) },
          );
        });
      });
      request.on('timeout', () =>
        request.destroy(new Error(`the collector did not answer within ${timeoutMillis} ms`)),
      );
      request.on('error', (error) => settle({ status: 'failure', error }));
      this.#open.add(request);
      request.end(body);
    });
  }

  /** Ends every request still open: each export in flight fails now instead of waiting for its timeout. */
  abandon(): void {
    for (const request of this.#open) request.destroy(new Error('the process ended before the collector answered'));
  }

  shutdown(): void {
    this.abandon();
    this.#agent.destroy();
  }
}

/** The exporter of `config`'s endpoint and encoding, and the transport it sends with. */
export function otlpExporterOf(config: TracesConfig): { exporter: SpanExporter; transport: OtlpHttpTransport } {
  const settings = mergeOtlpSharedConfigurationWithDefaults(
    {},
    getSharedConfigurationFromEnvironment('TRACES'),
    getSharedConfigurationDefaults(),
  );
  const json = config.protocol === 'http/json';
  const transport = new OtlpHttpTransport(
    config.url,
    { ...config.headers, 'Content-Type': json ? 'application/json' : 'application/x-protobuf' },
    settings.compression === 'gzip',
  );
  const serializer = json ? JsonTraceSerializer : ProtobufTraceSerializer;
  const exporter = new OTLPExporterBase(createOtlpNetworkExportDelegate(settings, serializer, transport));
  return { exporter, transport };
}
