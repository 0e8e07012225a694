import http from 'node:http';
import https from 'node:https';
import { convert } from 'html-to-text';
import { z } from 'zod';
import { defineTool } from '../define';
import { UrlRefusedError, checkUrl, defaultPort, guardedLookup, type SsrfPolicy } from './ssrf';

export interface FetchLimits {
  /** Body bytes read at most. Default 2 MB. */
  maxBytes: number;
  /** Whole fetch, redirects included. Default 20 s. */
  timeoutMs: number;
  /** Default 5. */
  maxRedirects: number;
}

const DEFAULT_FETCH_LIMITS: FetchLimits = { maxBytes: 2_000_000, timeoutMs: 20_000, maxRedirects: 5 };

export interface FetchedPage {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

function requestOnce(
  url: URL,
  policy: SsrfPolicy,
  limits: FetchLimits,
  signal: AbortSignal,
): Promise<{ res: http.IncomingMessage; body: Buffer; truncated: boolean }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'GET',
        agent: false,
        lookup: guardedLookup(defaultPort(url), policy),
        headers: {
          'user-agent': 'durable-agents-fetch/0.1',
          accept: 'text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5',
        },
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          const room = limits.maxBytes - size;
          if (chunk.length >= room) {
            chunks.push(chunk.subarray(0, room));
            truncated = true;
            resolve({ res, body: Buffer.concat(chunks), truncated });
            res.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => resolve({ res, body: Buffer.concat(chunks), truncated }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * GET with the SSRF guard: every URL (the first and each redirect target) is checked before
 * connecting, and the address a host name resolves to is checked at connect time. Redirects are
 * followed by hand for that reason.
 */
export async function guardedFetch(
  raw: string,
  policy: SsrfPolicy = {},
  limits: FetchLimits = DEFAULT_FETCH_LIMITS,
  outer?: AbortSignal,
): Promise<FetchedPage> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = outer ? AbortSignal.any([outer, deadline]) : deadline;
  let url = checkUrl(raw, policy);
  for (let hop = 0; ; hop++) {
    const { res, body, truncated } = await requestOnce(url, policy, limits, signal).catch((err: unknown) => {
      throw deadline.aborted
        ? new Error(`No complete response from ${url.origin} within ${limits.timeoutMs} ms.`)
        : err;
    });
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && location) {
      if (hop >= limits.maxRedirects) throw new UrlRefusedError(`Too many redirects (limit ${limits.maxRedirects}).`);
      url = checkUrl(new URL(location, url).toString(), policy);
      continue;
    }
    return { url: url.toString(), status, contentType: String(res.headers['content-type'] ?? ''), body, truncated };
  }
}

/** Readable text of a fetched body: HTML converted to text, other text types as they are. */
function pageText(page: FetchedPage): string {
  const type = page.contentType.toLowerCase();
  const text = page.body.toString('utf8');
  if (type.includes('html'))
    return convert(text, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] });
  if (type === '' || type.startsWith('text/') || /json|xml|javascript|yaml/.test(type)) return text;
  return `[${page.contentType} content, ${page.body.length} bytes; not shown as text]`;
}

/** The `http_fetch` tool; `policy.allow` opens specific internal `ip:port`s an operator trusts. */
export function createFetchTool(options: { policy?: SsrfPolicy; limits?: Partial<FetchLimits> } = {}) {
  const limits = { ...DEFAULT_FETCH_LIMITS, ...options.limits };
  return defineTool({
    name: 'http_fetch',
    description:
      'Fetch a public web page or document by URL (GET) and return its readable text. Internal and private ' +
      'addresses are refused.',
    parameters: z.object({ url: z.string().min(1).max(8192).describe('Absolute http(s) URL') }),
    timeoutMs: limits.timeoutMs + 5_000,
    async execute({ url }, ctx) {
      const page = await guardedFetch(url, options.policy, limits, ctx.signal);
      const header = `URL: ${page.url}\nStatus: ${page.status}\nContent-Type: ${page.contentType || 'unknown'}`;
      const note = page.truncated ? `\n…[body truncated at ${limits.maxBytes} bytes]` : '';
      return `${header}\n\n${pageText(page)}${note}`;
    },
  });
}
