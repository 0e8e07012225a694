/**
 * A local HTTP server speaking the Anthropic Messages and OpenAI Chat Completions formats from a
 * per-test script. Any path prefix works (`/minimax/v1/messages`, `/compat/v1/chat/completions`),
 * so one server stands in for several providers; thinking signatures are bound to their prefix.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isPlainObject } from '../../common/type-helpers';
import {
  anthropicErrorBody,
  anthropicEvents,
  anthropicMessage,
  anthropicMessageStart,
  anthropicStreamError,
} from './anthropic-render';
import { validateAnthropicRequest } from './anthropic-validate';
import { openaiChunks, openaiCompletion, openaiErrorBody, openaiStreamError } from './openai-render';
import { validateOpenAIRequest } from './openai-validate';
import { bearer, isContentDelta, readBody, sendJson, sendSse, sseHeaders, sseText } from './http-io';
import { prepareReply } from './prepare';
import { createPromptCache } from './prompt-cache';
import type {
  FakeApi,
  FakeError,
  FakeProvider,
  FakeProviderOptions,
  FakeReply,
  FakeResponder,
  FakeStep,
  RecordedRequest,
} from './script';

const ANTHROPIC_PATH = /^(.*)\/v1\/messages$/;

/** The API key a request carried, as its wire format sends it. */
const keyOf = (record: RecordedRequest): string | undefined =>
  record.api === 'anthropic' ? (record.headers['x-api-key'] ?? bearer(record.headers)) : bearer(record.headers);
const OPENAI_PATH = /^(.*?)(?:\/v1)?\/chat\/completions$/;

const requestIdOf = (record: RecordedRequest): string => `req_fake_${record.seq}`;

/** The header that carries a response's request id, as the request's wire format names it. */
const requestIdHeader = (record: RecordedRequest): Record<string, string> => ({
  [record.api === 'anthropic' ? 'request-id' : 'x-request-id']: requestIdOf(record),
});

/** An error body in the request's wire format. */
const errorBody = (
  record: RecordedRequest,
  status: number,
  message: string,
  { errorType, code, param }: { errorType?: string; code?: string; param?: string | null },
): Record<string, unknown> =>
  record.api === 'anthropic'
    ? anthropicErrorBody(status, message, errorType, requestIdOf(record))
    : openaiErrorBody(status, message, errorType, code, param ?? null);

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const secret = randomBytes(16);
  const queue: FakeStep[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let responder: FakeResponder | undefined;
  let toolCounter = 0;
  /** `prefix\nid` of OpenAI-format tool calls issued together with reasoning (see `needsReasoningBack`). */
  const reasoningCalls = new Set<string>();
  /** `prefix\nid` → thought signature issued with an OpenAI-format tool call. */
  const thoughtSignatures = new Map<string, string>();
  const promptCache = options.promptCache === false ? undefined : createPromptCache();

  const sign = (prefix: string, thinking: string): string =>
    `sig_${createHmac('sha256', secret).update(`${prefix}\n${thinking}`).digest('base64')}`;
  const verify = (prefix: string, thinking: string, signature: string): boolean => {
    const expected = Buffer.from(sign(prefix, thinking));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const anthropic = ANTHROPIC_PATH.exec(path);
    const match = anthropic ?? OPENAI_PATH.exec(path);
    if (req.method !== 'POST' || !match)
      return sendJson(res, 404, {
        error: { type: 'not_found_error', message: `fake provider: no route for ${req.method} ${path}` },
      });
    const api: FakeApi = anthropic ? 'anthropic' : 'openai';
    const prefix = match[1];
    const text = await readBody(req);
    const record: RecordedRequest = {
      seq: requests.length + 1,
      api,
      method: req.method,
      path,
      prefix,
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      ),
      body: {},
      stream: false,
      status: 0,
      receivedAt: Date.now(),
    };
    requests.push(record);
    const refuse = (status: number, message: string, param: string | null = null): void => {
      record.status = status;
      record.error = message;
      sendJson(res, status, errorBody(record, status, message, { param }), requestIdHeader(record));
    };
    try {
      const parsed: unknown = JSON.parse(text);
      if (!isPlainObject(parsed)) throw new Error('body must be a JSON object');
      record.body = parsed;
    } catch (err) {
      return refuse(400, `Request body is not valid JSON: ${(err as Error).message}`);
    }
    record.stream = record.body.stream === true;

    const key = keyOf(record);
    if (!key || (options.apiKey !== undefined && key !== options.apiKey))
      return refuse(401, key ? 'invalid x-api-key' : 'missing API key: send x-api-key or Authorization: Bearer');
    if (api === 'anthropic') {
      const error = validateAnthropicRequest(record.body, { verifySignature: (t, s) => verify(prefix, t, s) });
      if (error) return refuse(400, error);
    } else {
      const error = validateOpenAIRequest(record.body, {
        needsReasoningBack: (id) => reasoningCalls.has(`${prefix}\n${id}`),
        thoughtSignatureOf: (id) => thoughtSignatures.get(`${prefix}\n${id}`),
      });
      if (error) return refuse(400, error.message, error.param);
    }

    let step: FakeStep | undefined;
    try {
      step = queue.shift() ?? (responder ? await responder(record) : undefined);
    } catch (err) {
      return refuse(500, `fake provider: responder threw for request #${record.seq}: ${(err as Error).message}`);
    }
    if (!step) {
      refuse(500, `fake provider: script exhausted, no step left for request #${record.seq} (${req.method} ${path})`);
      return;
    }
    await play(step, record, res);
  }

  async function play(step: FakeStep, record: RecordedRequest, res: ServerResponse): Promise<void> {
    if (step.kind === 'hang') return;
    if (step.delayMs) await sleep(step.delayMs);
    if (res.destroyed) return;
    if (step.kind === 'reset') {
      res.socket?.destroy();
      return;
    }
    if (step.kind === 'error') return playError(step, record, res);
    return playReply(step, record, res);
  }

  function playError(step: FakeError, record: RecordedRequest, res: ServerResponse): void {
    const key = keyOf(record) ?? '';
    const echoed: Record<string, string> = step.echoKey ? { 'x-echoed-api-key': key } : {};
    const message = `${step.message ?? `fake ${step.status} error`}${step.echoKey ? ` (key: ${key})` : ''}`;
    record.error = message;
    if (step.inStream && record.stream) {
      record.status = 200;
      const events =
        record.api === 'anthropic'
          ? [
              anthropicMessageStart(`msg_fake_${record.seq}`, String(record.body.model), {
                input_tokens: 1,
                output_tokens: 1,
              }),
              anthropicStreamError(step.status, message, step.errorType),
            ]
          : [openaiStreamError(step.status, message, step.errorType, step.code)];
      return sendSse(res, events, { ...requestIdHeader(record), ...echoed });
    }
    record.status = step.status;
    const body = errorBody(record, step.status, message, step);
    sendJson(res, step.status, body, { ...requestIdHeader(record), ...step.headers, ...echoed });
  }

  async function playReply(step: FakeReply, record: RecordedRequest, res: ServerResponse): Promise<void> {
    const anthropic = record.api === 'anthropic';
    const reply = prepareReply(step, {
      newToolId: () => `${anthropic ? 'toolu_fake' : 'call_fake'}${String(++toolCounter).padStart(4, '0')}`,
      sign: (thinking) => sign(record.prefix, thinking),
      prompt: promptCache?.bill(record.api, `${record.prefix}\n${String(record.body.model)}`, record.body) ?? {
        input: Math.ceil(JSON.stringify(record.body.messages ?? '').length / 4),
        cacheRead: 0,
        cacheWrite: 0,
      },
    });
    for (const b of reply.blocks) {
      if (!anthropic && b.type === 'tool_call' && b.thoughtSignature)
        thoughtSignatures.set(`${record.prefix}\n${b.id}`, b.thoughtSignature);
    }
    if (!anthropic && reply.blocks.some((b) => b.type === 'thinking')) {
      for (const b of reply.blocks) if (b.type === 'tool_call') reasoningCalls.add(`${record.prefix}\n${b.id}`);
    }
    const model = String(record.body.model);
    const id = anthropic ? `msg_fake_${record.seq}` : `chatcmpl-fake-${record.seq}`;
    const headers = requestIdHeader(record);
    record.status = 200;
    const created = 1_700_000_000 + record.seq;
    if (!record.stream) {
      const body = anthropic ? anthropicMessage(reply, id, model) : openaiCompletion(reply, id, model, created);
      return sendJson(res, 200, body, headers);
    }
    const includeUsage =
      (record.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const events = anthropic
      ? anthropicEvents(reply, id, model)
      : openaiChunks(reply, id, model, created, includeUsage);
    const dropAfter = step.breakAfterEvents;
    if (dropAfter !== undefined) record.error = `connection dropped after ${dropAfter} events (scripted)`;
    const sent = dropAfter === undefined ? events : events.slice(0, dropAfter);
    if (!step.eventDelayMs) {
      if (sent.some(isContentDelta)) record.firstDeltaAt = Date.now();
      return sendSse(res, sent, headers, dropAfter !== undefined);
    }
    res.writeHead(200, sseHeaders(headers));
    for (const event of sent) {
      if (res.destroyed) return;
      if (isContentDelta(event)) record.firstDeltaAt ??= Date.now();
      res.write(sseText([event]));
      await sleep(step.eventDelayMs);
    }
    if (dropAfter !== undefined) res.socket?.destroy();
    else res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, {
          error: { type: 'api_error', message: `fake provider crashed: ${(err as Error).message}` },
        });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    anthropicBaseUrl: (prefix = '') => `${url}${prefix}`,
    openaiBaseUrl: (prefix = '') => `${url}${prefix}/v1`,
    script: (...steps) => void queue.push(...steps),
    respond: (fn) => {
      responder = fn;
    },
    requests,
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      responder = undefined;
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
