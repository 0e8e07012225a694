/**
 * The codec server: Temporal's remote codec protocol over plain HTTP. `POST …/decode` and
 * `POST …/encode` (also under `/{namespace}/`, as the CLI's `--codec-endpoint` templating makes)
 * take `{"payloads": [...]}` in proto3 JSON (bytes as base64) and answer in the same shape.
 */
import { errorText } from '../common/error-text';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PayloadCodec } from '@temporalio/common';
import { payloadToJSON } from '@temporalio/common/lib/proto-utils';
import { SetupError } from '../connection/setup-error';
import { openStore, type ContentStore, type StoreConfig } from '../store';
import { allowOrigin, bearerMatches, checkToken, DEFAULT_UI_ORIGINS, isLoopbackHost, normalizeOrigin } from './access';
import { ReferenceCodec } from './codec';
import { Redactor } from './redact';
import { HttpError, parsePayloads, readBody } from './wire';

export const DEFAULT_CODEC_PORT = 8081;
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** What the codec server reads as the workers do: their content store, and the credentials it must never show. */
export interface CodecSource {
  /**
   * The store to read bodies from: one the caller opened (left open when the server stops), or
   * where the workers keep conversations (opened here and closed with the server).
   */
  store: ContentStore | StoreConfig;
  /** The workers' credentials (the worker config's secrets): replaced wherever they appear in what it decodes. */
  secrets?: readonly string[];
}

export interface CodecServerOptions extends CodecSource {
  /** Default 8081; 0 takes any free port. */
  port?: number;
  /** When the port is taken, take a free one instead of failing. Default false. */
  anyPortIfTaken?: boolean;
  /** Bind address. Default `127.0.0.1`; any other than loopback needs a token. */
  host?: string;
  /** Web UI origins allowed by CORS. Default the dev server UI's (`http://localhost:8233`, `http://127.0.0.1:8233`). */
  origins?: string[];
  /** Bearer token every request must carry (at least 16 characters). */
  token?: string;
  /** Largest request body accepted. Default 8 MiB. */
  maxBodyBytes?: number;
}

/** A running codec server. */
export interface RunningCodecServer {
  /** Base URL: give it to `--ui-codec-endpoint` or `--codec-endpoint`. */
  url: string;
  port: number;
  origins: string[];
  /** The content store it reads, named for messages. */
  store: string;
  /** Stops serving and closes the store it opened. */
  close(): Promise<void>;
}

/** Why a codec server may not bind `host` with this token: message bodies beyond loopback need one. */
export function bindProblem(host: string, token: string | undefined): string | undefined {
  if (token || isLoopbackHost(host)) return undefined;
  return (
    `Refusing to serve message bodies on ${host} without a bearer token: ` +
    'set DURABLE_AGENTS_CODEC_TOKEN (or --token), or bind to 127.0.0.1.'
  );
}

/**
 * Starts a codec server. Refuses (a {@link SetupError}) to bind beyond loopback without a token,
 * to start with a malformed origin, or on a port in use.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  const host = options.host ?? '127.0.0.1';
  const settings = setup(() => {
    const token = options.token === undefined ? undefined : checkToken(options.token);
    const refused = bindProblem(host, token);
    if (refused) throw new Error(refused);
    const origins = [...new Set((options.origins ?? DEFAULT_UI_ORIGINS).map(normalizeOrigin))];
    const redactor = new Redactor([...(options.secrets ?? []), ...(token ? [token] : [])]);
    return { token, origins, redactor, loopback: isLoopbackHost(host) };
  });
  const opened = isStoreConfig(options.store);
  const store = isStoreConfig(options.store) ? await openStore(options.store) : options.store;
  const closeStore = opened ? () => store.close() : async () => undefined;
  const codec = new ReferenceCodec(store, settings.redactor);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const server = http.createServer((req, res) => {
    handle(req, res, { ...settings, codec, maxBodyBytes }).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else if (error instanceof HttpError) reply(res, error.status, error.message.replace(/\s+/g, ' ').trim());
      else {
        // Unexpected: the details stay in this process's log, never in an answer.
        process.stderr.write(`codec server: ${error instanceof Error ? error.stack : String(error)}\n`);
        reply(res, 500, 'internal error of the codec server (see its log)');
      }
    });
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  let port: number;
  try {
    port = await listen(server, host, options.port ?? DEFAULT_CODEC_PORT, options.anyPortIfTaken ?? false);
  } catch (error) {
    await closeStore();
    throw error;
  }
  // This machine is named localhost, as in the Web UI's links, whatever loopback address is bound.
  const local = isLoopbackHost(host) || host === '0.0.0.0' || host === '::';
  const shown = local ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    origins: settings.origins,
    store: store.description,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await closeStore();
    },
  };
}

function isStoreConfig(store: ContentStore | StoreConfig): store is StoreConfig {
  return typeof (store as Partial<ContentStore>).get !== 'function';
}

function setup<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new SetupError(errorText(error));
  }
}

async function listen(server: http.Server, host: string, port: number, anyPortIfTaken: boolean): Promise<number> {
  const attempt = (p: number) =>
    new Promise<number>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => reject(error);
      server.once('error', onError);
      server.listen(p, host, () => {
        server.off('error', onError);
        resolve((server.address() as AddressInfo).port);
      });
    });
  try {
    return await attempt(port);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' && anyPortIfTaken && port !== 0) return attempt(0);
    if (code === 'EADDRINUSE')
      throw new SetupError(
        `Port ${port} (codec server) is already in use on ${host}: stop whatever listens there, ` +
          'or choose another port (codec-server --port, dev-server --codec-port).',
      );
    throw new SetupError(`The codec server cannot listen on ${host}:${port}: ${(error as Error).message}`);
  }
}

interface Handling {
  /** Bound to loopback: only requests addressed to a loopback name are served (no DNS rebinding). */
  loopback: boolean;
  token?: string;
  origins: string[];
  codec: PayloadCodec;
  maxBodyBytes: number;
}

async function handle(req: IncomingMessage, res: ServerResponse, h: Handling): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Vary', 'Origin');
  if (h.loopback && !isLoopbackHost(hostnameOf(req.headers.host)))
    throw new HttpError(403, `host ${req.headers.host} is not this machine: call the codec server at localhost`);
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!h.origins.includes(origin))
      throw new HttpError(403, `origin ${origin} is not allowed: start the codec server with --origin ${origin}`);
    allowOrigin(req, res, origin);
  }
  const action = actionOf(req.url ?? '/');
  if (!action) throw new HttpError(404, 'not found: POST /decode or /encode, optionally under /{namespace}/');
  if (req.method === 'OPTIONS') {
    res.writeHead(204).end();
    return;
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST, OPTIONS');
    throw new HttpError(405, `method ${req.method} not allowed: POST the payloads`);
  }
  if (h.token && !bearerMatches(req, h.token)) {
    res.setHeader('WWW-Authenticate', 'Bearer');
    const given = req.headers.authorization ? 'a wrong bearer token' : 'no bearer token';
    throw new HttpError(401, `${given}: send Authorization: Bearer <token> (temporal: --codec-auth 'Bearer <token>')`);
  }
  const { payloads, originals } = parsePayloads(await readBody(req, res, h.maxBodyBytes));
  const decoded = await (action === 'decode' ? h.codec.decode(payloads) : h.codec.encode(payloads));
  const body = decoded.map((p, i) => (p === payloads[i] ? originals[i] : payloadToJSON(p)));
  res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ payloads: body }));
}

function hostnameOf(host: string | undefined): string {
  try {
    return new URL(`http://${host ?? ''}`).hostname;
  } catch {
    return '';
  }
}

/** `decode` or `encode` for `/decode`, `/encode`, `/{namespace}/decode`, `/{namespace}/encode`. */
function actionOf(url: string): 'decode' | 'encode' | undefined {
  let pathname: string;
  try {
    pathname = new URL(url, 'http://codec').pathname;
  } catch {
    return undefined;
  }
  const parts = pathname.split('/').filter(Boolean);
  const last = parts.at(-1);
  return parts.length <= 2 && (last === 'decode' || last === 'encode') ? last : undefined;
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${message}\n`);
}
