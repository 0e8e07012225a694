import { errorText } from '../common/error-text';
import fs from 'node:fs';
import net from 'node:net';
import { Client, Connection, type ClientInterceptors, type TLSConfig } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE } from '../contracts/agent-workflows';
import { SetupError, UnreachableServerError } from './setup-error';
import { decimalIn } from '../common/decimal';

/** Where and how to reach Temporal, read from Temporal's usual environment variables. */
export interface ConnectionSettings {
  /** `host:port` of the front end. `TEMPORAL_ADDRESS`, default `localhost:7233`. */
  address: string;
  /** True when the address was set (`TEMPORAL_ADDRESS`, or a flag) rather than the default. */
  addressFromEnv: boolean;
  /** What set the address when it was set, for messages; default `TEMPORAL_ADDRESS`. */
  addressSource?: string;
  /** `TEMPORAL_NAMESPACE`, default `default`. */
  namespace: string;
  /** `DURABLE_AGENTS_TASK_QUEUE`, default {@link DEFAULT_TASK_QUEUE}. */
  taskQueue: string;
  /** mTLS from `TEMPORAL_TLS_CERT` / `TEMPORAL_TLS_KEY` (paths), or plain TLS for an API key. */
  tls?: TLSConfig | boolean;
  /** `TEMPORAL_API_KEY` (Temporal Cloud). */
  apiKey?: string;
  /** `DURABLE_AGENTS_MAX_PAYLOAD_BYTES`: the payload limit of a server that does not report its own. */
  maxPayloadBytes?: number;
}

/** Environment variable that sets the payload limit for servers that do not report it. */
export const PAYLOAD_LIMIT_ENV = 'DURABLE_AGENTS_MAX_PAYLOAD_BYTES';

export const DEFAULT_ADDRESS = 'localhost:7233';

/**
 * Reads connection settings from the environment:
 * `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY`,
 * `TEMPORAL_TLS_CA`, `TEMPORAL_TLS_SERVER_NAME`, `TEMPORAL_TLS` (true/false), `TEMPORAL_API_KEY`,
 * `DURABLE_AGENTS_TASK_QUEUE`, `DURABLE_AGENTS_MAX_PAYLOAD_BYTES`. Unreadable certificate files
 * and a payload limit that is not a positive whole number are a {@link SetupError}.
 */
export function connectionSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const address = env.TEMPORAL_ADDRESS?.trim() || DEFAULT_ADDRESS;
  const apiKey = env.TEMPORAL_API_KEY?.trim() || undefined;
  const certPath = env.TEMPORAL_TLS_CERT?.trim();
  const keyPath = env.TEMPORAL_TLS_KEY?.trim();
  if (Boolean(certPath) !== Boolean(keyPath)) {
    throw new SetupError(
      'Set both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (paths of the client certificate and its key), or neither.',
    );
  }
  const caPath = env.TEMPORAL_TLS_CA?.trim();
  const serverName = env.TEMPORAL_TLS_SERVER_NAME?.trim();
  const tlsFlag = env.TEMPORAL_TLS?.trim().toLowerCase();

  let tls: TLSConfig | undefined;
  if (certPath && keyPath)
    tls = {
      clientCertPair: { crt: readFile('TEMPORAL_TLS_CERT', certPath), key: readFile('TEMPORAL_TLS_KEY', keyPath) },
    };
  else if (caPath || serverName || apiKey || tlsFlag === 'true' || tlsFlag === '1') tls = {};
  if (tls && caPath) tls.serverRootCACertificate = readFile('TEMPORAL_TLS_CA', caPath);
  if (tls && serverName) tls.serverNameOverride = serverName;
  if (tlsFlag === 'false' || tlsFlag === '0') tls = undefined;
  const payloadLimit = env[PAYLOAD_LIMIT_ENV]?.trim();
  const maxPayloadBytes = payloadLimit ? decimalIn(payloadLimit, { what: 'bytes', min: 1, integer: true }) : undefined;
  if (payloadLimit && maxPayloadBytes === undefined)
    throw new SetupError(`${PAYLOAD_LIMIT_ENV}="${payloadLimit}" is not a positive whole number of bytes.`);

  return {
    address,
    addressFromEnv: Boolean(env.TEMPORAL_ADDRESS?.trim()),
    namespace: env.TEMPORAL_NAMESPACE?.trim() || 'default',
    taskQueue: env.DURABLE_AGENTS_TASK_QUEUE?.trim() || DEFAULT_TASK_QUEUE,
    tls,
    apiKey,
    ...(maxPayloadBytes === undefined ? {} : { maxPayloadBytes }),
  };
}

/** The one-line error for a server that does not answer at `settings.address`. */
export function unreachableMessage(
  settings: Pick<ConnectionSettings, 'address' | 'addressFromEnv' | 'addressSource'>,
  detail?: string,
): string {
  const why = detail ? ` (${detail})` : '';
  const source = settings.addressSource ?? 'TEMPORAL_ADDRESS';
  return settings.addressFromEnv
    ? `Cannot reach the Temporal server at ${source}=${settings.address}${why}: start it, fix the ` +
        `address, or ${source.startsWith('--') ? 'leave out' : 'unset'} ${source} to use a local dev server.`
    : `No Temporal server at ${settings.address}${why}: start one with \`durable-agents dev-server\`, or ` +
        `point TEMPORAL_ADDRESS at yours.`;
}

/** How long connecting may take: the TCP handshake, then the gRPC channel's. */
const CONNECT_TIMEOUT_MS = 5_000;

/** Variables that send gRPC through a proxy, where a direct TCP probe says nothing about the path. */
const PROXY_VARIABLES = ['grpc_proxy', 'https_proxy', 'http_proxy', 'GRPC_PROXY', 'HTTPS_PROXY', 'HTTP_PROXY'];

/**
 * A client connection for starting and inspecting runs; refuses with a one-line {@link SetupError}.
 * An address where nothing listens (refused, unknown host) is refused at once: the gRPC channel
 * would retry until its timeout. A server that accepts the connection has the whole timeout to answer.
 */
export async function connectClient(
  settings: ConnectionSettings = connectionSettingsFromEnv(),
  interceptors?: ClientInterceptors,
): Promise<Client> {
  let connection: Connection;
  try {
    const target = PROXY_VARIABLES.some((name) => process.env[name]) ? undefined : targetOf(settings.address);
    if (target) {
      await tcpConnect(target.host, target.port, CONNECT_TIMEOUT_MS);
      if (!settings.tls) await probeGrpc(settings, target);
    }
    connection = await Connection.connect({
      address: settings.address,
      tls: settings.tls,
      apiKey: settings.apiKey,
      connectTimeout: CONNECT_TIMEOUT_MS,
    });
  } catch (error) {
    if (error instanceof UnreachableServerError) throw error;
    throw new UnreachableServerError(unreachableMessage(settings, shortCause(error)));
  }
  return new Client({ connection, namespace: settings.namespace, ...(interceptors ? { interceptors } : {}) });
}

/** Splits `host:port` (IPv6 in brackets allowed); the port defaults to Temporal's 7233. */
export function parseAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(address.trim());
  if (!match || !match[1])
    throw new Error(`Invalid Temporal address "${address}": expected host:port, e.g. localhost:7233`);
  return { host: match[1], port: match[2] ? Number(match[2]) : 7233 };
}

/**
 * Opens and closes a TCP connection to `host:port`: rejects at once when it is refused or the host
 * is unknown, and after `timeoutMs` without an answer.
 */
export function tcpConnect(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no TCP answer in ${timeoutMs} ms: timed out`)));
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/** The `host:port` a Temporal address names for the probes; undefined (left to the gRPC client) when it is not one. */
function targetOf(address: string): { host: string; port: number } | undefined {
  try {
    return parseAddress(address);
  } catch {
    return undefined;
  }
}

/** How long the first bytes of a plain-text gRPC server may take before the client's own channel decides. */
const PREFACE_ANSWER_MS = 1_500;

/**
 * Says at once when the address is a server of another kind: a plain-text gRPC server answers the
 * HTTP/2 preface with its settings, while an HTTP/1.1 server (a Web UI's port) answers with an
 * HTTP status line and some endpoints close the connection unanswered. A server that says nothing
 * in time is left to the gRPC channel and its whole timeout.
 */
async function probeGrpc(settings: ConnectionSettings, target: { host: string; port: number }): Promise<void> {
  const answer = await new Promise<'http1' | 'closed' | 'other'>((resolve) => {
    const socket = net.connect(target);
    const done = (what: 'http1' | 'closed' | 'other') => {
      socket.destroy();
      resolve(what);
    };
    socket.setTimeout(PREFACE_ANSWER_MS, () => done('other'));
    socket.once('connect', () => socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    socket.once('data', (data: Buffer) => done(data.subarray(0, 5).toString('latin1') === 'HTTP/' ? 'http1' : 'other'));
    socket.once('end', () => done('closed'));
    socket.once('error', () => done('closed'));
  });
  const port = `port ${target.port}`;
  if (answer === 'other') return;
  const why =
    answer === 'http1'
      ? `it answers HTTP/1.1, not gRPC: ${port} is not a Temporal frontend (the Web UI's?)`
      : `it closed the connection without answering plain gRPC: is ${port} a Temporal frontend, and without TLS?`;
  throw new UnreachableServerError(unreachableMessage(settings, why));
}

function readFile(variable: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new SetupError(`${variable}=${file} cannot be read (${shortCause(error)}): fix the path.`);
  }
}

const KNOWN_CAUSES: [RegExp, string][] = [
  [/dns error|failed to lookup|ENOTFOUND|EAI_AGAIN|Name or service not known/i, 'host not found'],
  [/connection refused|ECONNREFUSED/i, 'connection refused'],
  [/EHOSTUNREACH|ENETUNREACH|unreachable/i, 'host unreachable'],
  [/certificate|handshake|tls|ssl/i, 'TLS handshake failed'],
  [/deadline|timed? ?out/i, 'no answer in time'],
];

/** A short reason for a connection failure: a plain phrase when known, else the innermost cause's first line. */
export function shortCause(error: unknown): string {
  const messages: string[] = [];
  for (
    let current: unknown = error;
    current !== undefined;
    current = current instanceof Error ? current.cause : undefined
  ) {
    messages.push(errorText(current));
  }
  const all = messages.join('\n');
  const known = KNOWN_CAUSES.find(([pattern]) => pattern.test(all));
  if (known) return known[1];
  return (messages.at(-1) ?? '').split('\n')[0].slice(0, 200);
}
