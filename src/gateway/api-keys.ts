/**
 * Who may call the gateway: API keys from a file, stored as SHA-256 hashes, each mapped to a tenant
 * (fairness, budgets, priority: docs/fleet.md), the agents it may run and its request limit. A key
 * itself is compared by hash and never kept, logged or passed on; refusals name the key's `name`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Caller } from './run-start';
import { parseJson } from '../common/json-text';
import { absentOrAll } from '../common/type-helpers';

/** One entry of the key file. */
export interface ApiKeyEntry {
  /** What logs and refusals call the key. */
  name: string;
  /** Hex SHA-256 of the key (`printf %s "$KEY" | sha256sum`). */
  sha256: string;
  /** The tenant its runs work for. */
  tenant?: string;
  /** The published agents it may run; absent or `["*"]`: all. */
  agents?: string[];
  /** Requests a minute it may make, per gateway replica; absent: no limit. */
  requestsPerMinute?: number;
}

export type AuthOutcome =
  { ok: true; caller: Caller; may(agent: string): boolean } | { ok: false; status: 401 | 429; message: string };

const HEX64 = /^[0-9a-f]{64}$/;

/** Reads and checks a key file; throws one line naming the file and what is wrong. */
export function readApiKeys(file: string): ApiKeyEntry[] {
  let parsed: unknown;
  try {
    parsed = parseJson(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`the API key file ${file} cannot be read as JSON: ${reason}`, { cause: err });
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new Error(`the API key file ${file} must hold { "keys": [ { "name", "sha256", "tenant", "agents" } ] }`);
  const names = new Set<string>();
  return keys.map((entry: Partial<ApiKeyEntry>, i) => {
    const at = `the API key file ${file}, key ${i + 1}`;
    if (typeof entry?.name !== 'string' || !entry.name) throw new Error(`${at}: needs a name`);
    if (names.has(entry.name)) throw new Error(`${at}: the name "${entry.name}" is used twice`);
    names.add(entry.name);
    if (typeof entry.sha256 !== 'string' || !HEX64.test(entry.sha256.toLowerCase()))
      throw new Error(`${at} ("${entry.name}"): sha256 must be the key's SHA-256 in 64 hex digits, never the key`);
    if (!absentOrAll(entry.agents, (a) => typeof a === 'string'))
      throw new Error(`${at} ("${entry.name}"): agents must be a list of agent names`);
    if (entry.tenant !== undefined && typeof entry.tenant !== 'string')
      throw new Error(`${at} ("${entry.name}"): tenant must be a string`);
    const rpm = entry.requestsPerMinute;
    if (rpm !== undefined && !(Number.isInteger(rpm) && rpm > 0))
      throw new Error(`${at} ("${entry.name}"): requestsPerMinute must be a whole number above 0`);
    return { ...entry, sha256: entry.sha256.toLowerCase() } as ApiKeyEntry;
  });
}

/** The key a request carries: `Authorization: Bearer KEY`, else `x-api-key`. */
export function presentedKey(header: (name: string) => string | undefined): string | undefined {
  const auth = header('authorization');
  const bearer = auth?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  return bearer || header('x-api-key')?.trim() || undefined;
}

const sha256 = (text: string): Buffer => crypto.createHash('sha256').update(text, 'utf8').digest();

/** Keys by hash, with a request budget per key that refills continuously over a minute. */
export class ApiKeys {
  private readonly byHash: { hash: Buffer; entry: ApiKeyEntry }[];
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    entries: ApiKeyEntry[],
    private readonly now: () => number = Date.now,
  ) {
    this.byHash = entries.map((entry) => ({ hash: Buffer.from(entry.sha256, 'hex'), entry }));
  }

  /** Who a request's key belongs to, or why it is refused; each accepted request counts toward its key's limit. */
  authenticate(key: string | undefined): AuthOutcome {
    if (!key) return { ok: false, status: 401, message: 'an API key is required (Authorization: Bearer KEY)' };
    const hash = sha256(key);
    // Every entry is compared, in constant time each, so the time does not tell which one matched.
    let found: ApiKeyEntry | undefined;
    for (const { hash: h, entry } of this.byHash) if (crypto.timingSafeEqual(h, hash)) found = entry;
    if (!found) return { ok: false, status: 401, message: 'the API key is not valid' };
    if (!this.take(found))
      return {
        ok: false,
        status: 429,
        message: `the API key "${found.name}" is over its limit of ${found.requestsPerMinute} requests a minute`,
      };
    const entry = found;
    return {
      ok: true,
      caller: { ...(entry.tenant ? { tenant: entry.tenant } : {}), keyName: entry.name },
      may: (agent) => !entry.agents || entry.agents.includes('*') || entry.agents.includes(agent),
    };
  }

  private take(entry: ApiKeyEntry): boolean {
    const limit = entry.requestsPerMinute;
    if (!limit) return true;
    const now = this.now();
    const bucket = this.buckets.get(entry.name) ?? { tokens: limit, at: now };
    bucket.tokens = Math.min(limit, bucket.tokens + ((now - bucket.at) * limit) / 60_000);
    bucket.at = now;
    this.buckets.set(entry.name, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

/** Whether a bind address reaches this machine only. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
