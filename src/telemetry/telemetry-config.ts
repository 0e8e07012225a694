/**
 * What a process exports, read from the standard OpenTelemetry variables and the project's metrics
 * port and address: traces over OTLP/HTTP when an endpoint is set, the SDK runtime's Prometheus
 * endpoint when a port is given. Nothing is exported when neither is set.
 */
import { isIP } from 'node:net';
import { SetupError } from '../connection/setup-error';
import { PORT, decimalIn } from '../common/decimal';

/** Environment variable: the worker's Prometheus port (`worker --metrics-port` wins). */
export const METRICS_PORT_ENV = 'DURABLE_AGENTS_METRICS_PORT';
/** Environment variable: the address the Prometheus endpoint listens on (`worker --metrics-bind` wins). */
export const METRICS_BIND_ENV = 'DURABLE_AGENTS_METRICS_BIND';
/**
 * Where the Prometheus endpoint listens unless told: this machine only, since its series name
 * tenants and what they spend.
 */
export const DEFAULT_METRICS_BIND = '127.0.0.1';
/** The GenAI conventions' opt-in for message content in spans. */
export const CAPTURE_CONTENT_ENV = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
/** The service name spans carry when `OTEL_SERVICE_NAME` is unset. */
export const DEFAULT_SERVICE_NAME = 'durable-agents';

/** The OTLP/HTTP encodings an exporter can send. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracesConfig {
  /** The full URL spans are posted to (`…/v1/traces`). */
  url: string;
  headers: Record<string, string>;
  protocol: OtlpProtocol;
  serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`: more attributes of the process (deployment.environment, …). */
  resourceAttributes: Record<string, string>;
  /** Put message bodies, tool arguments and results in spans (off unless the operator opts in). */
  captureContent: boolean;
}

export interface MetricsConfig {
  /** `host:port` the Prometheus endpoint listens on (`/metrics`). */
  bindAddress: string;
}

/** What the process exports; each part absent when it is off. */
export interface TelemetryConfig {
  traces?: TracesConfig;
  metrics?: MetricsConfig;
}

const TRUE = /^(1|true|yes|on)$/i;

/** `k1=v1,k2=v2` with URL-encoded values, as OTEL_EXPORTER_OTLP_HEADERS spells headers. */
function parseHeaders(raw: string | undefined, variable: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    if (!pair.trim()) continue;
    const at = pair.indexOf('=');
    if (at <= 0) throw new SetupError(`${variable} has "${pair.trim()}", not key=value: write k1=v1,k2=v2.`);
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new SetupError(`${variable} has a badly URL-encoded value for "${pair.slice(0, at).trim()}".`);
    }
  }
  return headers;
}

function checkedUrl(value: string, variable: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SetupError(`${variable}=${value} is not a URL: give one like http://localhost:4318.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SetupError(`${variable}=${value} is not an http(s) URL: spans are sent over OTLP/HTTP.`);
  return value;
}

function protocolOf(env: NodeJS.ProcessEnv): OtlpProtocol {
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const raw = env[variable]?.trim();
  if (!raw) return 'http/protobuf';
  if (raw === 'http/protobuf' || raw === 'http/json') return raw;
  throw new SetupError(`${variable}=${raw} is not supported: use http/protobuf (the default) or http/json.`);
}

/** Traces from the OTel variables; undefined when no endpoint is set or the SDK is disabled. */
export function tracesConfigOf(env: NodeJS.ProcessEnv): TracesConfig | undefined {
  if (TRUE.test(env.OTEL_SDK_DISABLED ?? '') || env.OTEL_TRACES_EXPORTER?.trim() === 'none') return undefined;
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = signal
    ? checkedUrl(signal, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
    : base
      ? `${checkedUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT').replace(/\/+$/, '')}/v1/traces`
      : undefined;
  if (!url) return undefined;
  return {
    url,
    headers: {
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    protocol: protocolOf(env),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME,
    resourceAttributes: parseHeaders(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES'),
    captureContent: TRUE.test(env[CAPTURE_CONTENT_ENV] ?? ''),
  };
}

/** What `worker` takes about its Prometheus endpoint, over the environment. */
export interface MetricsFlags {
  /** `--metrics-port`, over `DURABLE_AGENTS_METRICS_PORT`. */
  metricsPort?: string | number;
  /** `--metrics-bind`, over `DURABLE_AGENTS_METRICS_BIND`; default {@link DEFAULT_METRICS_BIND}. */
  metricsBind?: string;
}

/** The flag's value, else the variable's, with the name to quote in an error; undefined when both are empty. */
function setting(flag: string | number | undefined, name: string, env: string | undefined, variable: string) {
  if (flag !== undefined) return { raw: String(flag).trim(), source: name };
  return env === undefined || env.trim() === '' ? undefined : { raw: env.trim(), source: variable };
}

/** The Prometheus endpoint from the flags over the environment; undefined when no port is given. */
function metricsOf(flags: MetricsFlags, env: NodeJS.ProcessEnv): MetricsConfig | undefined {
  const port = setting(flags.metricsPort, '--metrics-port', env[METRICS_PORT_ENV], METRICS_PORT_ENV);
  const bind = setting(flags.metricsBind, '--metrics-bind', env[METRICS_BIND_ENV], METRICS_BIND_ENV);
  if (bind && !isIP(bind.raw))
    throw new SetupError(
      `${bind.source} ${bind.raw} is not an IP address: give 127.0.0.1 (this machine only, the default) ` +
        'or 0.0.0.0 (every interface).',
    );
  if (!port) {
    if (flags.metricsBind !== undefined)
      throw new SetupError('--metrics-bind needs a port to listen on: give --metrics-port too.');
    return undefined;
  }
  const number = decimalIn(port.raw, PORT);
  if (number === undefined)
    throw new SetupError(`${port.source} ${port.raw} is not a port: give a number from 1 to 65535.`);
  const host = bind?.raw ?? DEFAULT_METRICS_BIND;
  return { bindAddress: isIP(host) === 6 ? `[${host}]:${number}` : `${host}:${number}` };
}

/**
 * The process's telemetry from its environment (and `worker --metrics-port`, `--metrics-bind`).
 * Throws a one-line {@link SetupError} naming the variable or flag that cannot be used.
 */
export function telemetryConfigOf(env: NodeJS.ProcessEnv, flags: MetricsFlags = {}): TelemetryConfig {
  const traces = tracesConfigOf(env);
  const metrics = metricsOf(flags, env);
  return { ...(traces ? { traces } : {}), ...(metrics ? { metrics } : {}) };
}

/** Values of the exporter's headers (a collector's token): secrets the worker never lets out. */
export const telemetrySecrets = (config: TelemetryConfig): string[] => Object.values(config.traces?.headers ?? {});
