/**
 * An OTLP/HTTP trace receiver, as a collector's `/v1/traces` endpoint: it keeps every request's
 * bytes as they arrived and decodes the spans, protobuf with OpenTelemetry's own generated
 * messages (`@opentelemetry/otlp-transformer`), JSON as it is.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// OpenTelemetry's generated protobuf messages (protobufjs static code), as its exporters encode them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { opentelemetry } = require('@opentelemetry/otlp-transformer/build/src/generated/root') as {
  opentelemetry: {
    proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode(bytes: Uint8Array): unknown } } } } };
  };
};

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

/** One received span, ids in hex. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, AttributeValue>;
  /** `service.name` of the process that sent it. */
  service?: string;
}

export interface OtlpReceiver {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` names it. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request body as it arrived. */
  bodies: Buffer[];
  /** The content types the requests came with. */
  contentTypes: string[];
  close(): Promise<void>;
}

interface WireValue {
  value?: string;
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string | { toNumber(): number };
  doubleValue?: number;
  arrayValue?: { values?: WireValue[] };
}

interface WireKeyValue {
  key: string;
  value?: WireValue;
}

interface WireSpan {
  traceId: Uint8Array | string;
  spanId: Uint8Array | string;
  parentSpanId?: Uint8Array | string;
  name: string;
  attributes?: WireKeyValue[];
}

interface WireRequest {
  resourceSpans?: { resource?: { attributes?: WireKeyValue[] }; scopeSpans?: { spans?: WireSpan[] }[] }[];
}

const hex = (id: Uint8Array | string | null | undefined): string | undefined => {
  if (id === undefined || id === null) return undefined;
  const text = typeof id === 'string' ? id : Buffer.from(id).toString('hex');
  return text === '' ? undefined : text;
};

function valueOf(value: WireValue | undefined): AttributeValue {
  if (!value) return undefined;
  // Protobuf messages name the set field of the `value` oneof; JSON has only the one set.
  const field = value.value ?? Object.keys(value).find((key) => key.endsWith('Value'));
  switch (field) {
    case 'stringValue':
      return value.stringValue;
    case 'boolValue':
      return value.boolValue;
    case 'doubleValue':
      return value.doubleValue;
    case 'intValue': {
      const int = value.intValue;
      return typeof int === 'object' && int !== null ? int.toNumber() : Number(int);
    }
    case 'arrayValue':
      return (value.arrayValue?.values ?? []).map(valueOf);
    default:
      return undefined;
  }
}

const attributesOf = (list: WireKeyValue[] | undefined): Record<string, AttributeValue> =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

function spansOf(request: WireRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = attributesOf(resourceSpans.resource?.attributes)['service.name'];
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => {
        const parentSpanId = hex(span.parentSpanId);
        return {
          traceId: hex(span.traceId) ?? '',
          spanId: hex(span.spanId) ?? '',
          ...(parentSpanId ? { parentSpanId } : {}),
          name: span.name,
          attributes: attributesOf(span.attributes),
          ...(typeof service === 'string' ? { service } : {}),
        };
      }),
    );
  });
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: Buffer[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const type = req.headers['content-type'] ?? '';
      bodies.push(body);
      contentTypes.push(type);
      const decoded = type.includes('json')
        ? (JSON.parse(body.toString('utf8')) as WireRequest)
        : (opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.decode(body) as WireRequest);
      spans.push(...spansOf(decoded));
      res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf' });
      res.end(type.includes('json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The span's ancestors among `spans`, nearest first. */
export function ancestorsOf(span: ReceivedSpan, spans: readonly ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain: ReceivedSpan[] = [];
  for (let at = span.parentSpanId ? byId.get(span.parentSpanId) : undefined; at;) {
    chain.push(at);
    at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined;
  }
  return chain;
}
