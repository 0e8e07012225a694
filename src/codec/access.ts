/** Who may call the codec server: the bind address rule, the UI origins allowed by CORS, the bearer token. */
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import ipaddr from 'ipaddr.js';

/** Environment variable holding the codec server's bearer token. */
export const CODEC_TOKEN_ENV = 'DURABLE_AGENTS_CODEC_TOKEN';

/** Shortest bearer token accepted. */
const MIN_TOKEN_LENGTH = 16;

/** Request headers the Web UI and the CLI send. */
const ALLOWED_HEADERS = 'Content-Type, X-Namespace, Authorization';

/** True for `localhost` and loopback addresses: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

/** Both forms of a local Web UI's origin (the UI may be opened at either). */
export function localUiOrigins(uiPort: number): string[] {
  return [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`];
}

/** The origins of the dev server's default Web UI port. */
export const DEFAULT_UI_ORIGINS = localUiOrigins(8233);

/** An origin as browsers send it (`scheme://host[:port]`); throws a one-line error for anything else. */
export function normalizeOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`"${value}" is not an origin: expected a URL like http://localhost:8233`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`"${value}" is not an origin: only http and https UIs call a codec server`);
  return url.origin;
}

/** A token for `Authorization: Bearer …`; throws a one-line error when too short to be a secret. */
export function checkToken(token: string): string {
  if (token.trim().length < MIN_TOKEN_LENGTH || /\s/.test(token.trim()))
    throw new Error(`The codec server token must be at least ${MIN_TOKEN_LENGTH} characters without spaces.`);
  return token.trim();
}

/** True when the request carries `Authorization: Bearer <token>` (compared in constant time). */
export function bearerMatches(req: IncomingMessage, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match) return false;
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(match[1]), digest(token));
}

/**
 * CORS for an allowed origin: the origin is echoed (credentials may be included, as the Web UI's
 * "include credentials" setting does), and a preflight learns the methods and headers it may use.
 */
export function allowOrigin(req: IncomingMessage, res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Credentials', 'true');
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    // A UI served from the internet (e.g. Temporal Cloud) calling a codec server on this machine.
    if (req.headers['access-control-request-private-network'] === 'true')
      res.setHeader('Access-Control-Allow-Private-Network', 'true');
  }
}
