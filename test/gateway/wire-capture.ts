/**
 * What a protocol's own client received, byte for byte: a `fetch` to hand the client library that
 * passes every response through untouched and keeps a copy of its body, and a check of those bodies
 * against the protocols' published schemas (schemas/validate_wire.py, in the Python environment
 * scripts/setup.sh makes for it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One exchange as the client saw it. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  /** The request's JSON body, when it had one. */
  request?: unknown;
  /** The response's JSON body; for an event stream, each event's JSON data in order. */
  body: unknown[];
  stream: boolean;
}

export interface WireCapture {
  fetch: typeof fetch;
  /** Every exchange, once every body has been read to its end. */
  exchanges(): Promise<Exchange[]>;
}

const jsonOr = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The JSON data of each event of a `text/event-stream` body (an event's `data:` lines joined). */
export function sseData(text: string): unknown[] {
  return text.split(/\r?\n\r?\n/).flatMap((block) => {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    const value = data ? jsonOr(data) : undefined;
    return value === undefined ? [] : [value];
  });
}

export function captureWire(): WireCapture {
  const pending: Promise<Exchange>[] = [];
  const tee: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const sent = init?.body ?? (request.body ? await request.clone().text() : undefined);
    const response = await fetch(request);
    const stream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    pending.push(
      response
        .clone()
        .text()
        .then((text) => ({
          method: request.method,
          url: request.url,
          status: response.status,
          ...(typeof sent === 'string' ? { request: jsonOr(sent) } : {}),
          body: stream ? sseData(text) : [jsonOr(text)].filter((v) => v !== undefined),
          stream,
        })),
    );
    return response;
  };
  return { fetch: tee, exchanges: () => Promise.all(pending) };
}

/** A value sent on the wire and the schema it must keep. */
export interface SchemaCheck {
  schema: string;
  value: unknown;
  /** Where it was sent, for the report. */
  where: string;
}

/** The Python that has the protocols' schema packages (scripts/setup.sh makes it). */
export function schemaPython(): string {
  const root = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  const python = path.join(root, 'durable-agents', 'protocol-schemas', 'bin', 'python');
  if (!fs.existsSync(python))
    throw new Error(`${python} is missing: scripts/setup.sh installs the protocols' schemas there`);
  return python;
}

/** The lines of every value that breaks its protocol's schema; empty when all keep them. */
export function schemaProblems(checks: { openResponses?: SchemaCheck[]; a2a?: SchemaCheck[] }): string {
  const script = path.join(__dirname, 'schemas', 'validate_wire.py');
  try {
    execFileSync(schemaPython(), [script], { input: JSON.stringify(checks), encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    return `${stdout ?? ''}${stdout ? '' : (stderr ?? String(err))}`.trim();
  }
}
