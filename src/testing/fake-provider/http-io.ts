/** HTTP plumbing of the fake provider: request bodies, bearer tokens, JSON and SSE responses. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SseEvent } from './anthropic-render';

export function bearer(headers: Record<string, string>): string | undefined {
  const auth = headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export const sseHeaders = (headers: Record<string, string>): Record<string, string> => ({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  ...headers,
});

/** Whether an SSE event carries a piece of the answer: text, thinking or a tool call's arguments. */
export const isContentDelta = (event: SseEvent): boolean =>
  event.event === 'content_block_delta' ||
  (event.event === undefined && /"(content|reasoning_content|arguments)":"[^"]/.test(event.data));

export const sseText = (events: SseEvent[]): string =>
  events.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`).join('');

export function sendSse(
  res: ServerResponse,
  events: SseEvent[],
  headers: Record<string, string>,
  dropAfter = false,
): void {
  res.writeHead(200, sseHeaders(headers));
  const text = sseText(events);
  if (dropAfter) res.write(text, () => res.socket?.destroy());
  else res.end(text);
}
