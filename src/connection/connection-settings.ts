import { errorText } from '../common/error-text';
import fs from 'node:fs';
import { Client, Connection, type ClientInterceptors, type TLSConfig } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE } from '../contracts/agent-workflows';
import { SetupError, UnreachableServerError } from './setup-error';

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
}

export const DEFAULT_ADDRESS = 'localhost:7233';

/**
 * Reads connection settings from the environment:
 * `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY`,
 * `TEMPORAL_TLS_CA`, `TEMPORAL_TLS_SERVER_NAME`, `TEMPORAL_TLS` (true/false), `TEMPORAL_API_KEY`,
 * `DURABLE_AGENTS_TASK_QUEUE`. Unreadable certificate files are a {@link SetupError}.
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

  let tls: TLSConfig | boolean | undefined;
  if (certPath && keyPath) {
    tls = {
      clientCertPair: { crt: readFile('TEMPORAL_TLS_CERT', certPath), key: readFile('TEMPORAL_TLS_KEY', keyPath) },
    };
  } else if (caPath || serverName || apiKey || tlsFlag === 'true' || tlsFlag === '1') {
    tls = {};
  }
  if (tls && typeof tls === 'object') {
    if (caPath) tls.serverRootCACertificate = readFile('TEMPORAL_TLS_CA', caPath);
    if (serverName) tls.serverNameOverride = serverName;
  }
  if (tlsFlag === 'false' || tlsFlag === '0') tls = undefined;

  return {
    address,
    addressFromEnv: Boolean(env.TEMPORAL_ADDRESS?.trim()),
    namespace: env.TEMPORAL_NAMESPACE?.trim() || 'default',
    taskQueue: env.DURABLE_AGENTS_TASK_QUEUE?.trim() || DEFAULT_TASK_QUEUE,
    tls,
    apiKey,
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

/** A client connection for starting and inspecting runs; refuses with a one-line {@link SetupError}. */
export async function connectClient(
  settings: ConnectionSettings = connectionSettingsFromEnv(),
  interceptors?: ClientInterceptors,
): Promise<Client> {
  let connection: Connection;
  try {
    connection = await Connection.connect({
      address: settings.address,
      tls: settings.tls,
      apiKey: settings.apiKey,
      connectTimeout: '5s',
    });
  } catch (error) {
    throw new UnreachableServerError(unreachableMessage(settings, shortCause(error)));
  }
  return new Client({ connection, namespace: settings.namespace, ...(interceptors ? { interceptors } : {}) });
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
