/**
 * A2A 1.0 over JSON-RPC at `/a2a`, with the agent card at `/.well-known/agent-card.json` (one skill
 * per published agent). The SDK's JSON-RPC transport handlers parse and answer the calls (1.0's
 * `SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`, `SubscribeToTask`, and 0.3's
 * `message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe` for clients that
 * ask for 0.3); the gateway's handler does what they ask with runs.
 */
import { A2A_VERSION_HEADER, AgentCard, type AgentCard as Card } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
  type A2ARequestHandler,
} from '@a2a-js/sdk/server';
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { CALLER_KEY, GatewayA2AHandler, type CallerState } from './a2a-handler';
import { rpcRefusal, untilAborted, type GatewayContext } from './gateway-context';

const CARD_PATH = '/.well-known/agent-card.json';

/** The agent card: its JSON-RPC interface in both versions, bearer keys when it has them, a skill per agent. */
function cardOf(ctx: GatewayContext, base: string, secured: boolean): Card {
  const url = `${base}/a2a`;
  return {
    name: 'durable-agents',
    description: `Durable agents, each a skill: ${Object.keys(ctx.runs.published).join(', ')}`,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: secured
      ? {
          apiKey: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { description: 'an API key of the gateway', scheme: 'bearer', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: secured ? [{ schemes: { apiKey: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: Object.entries(ctx.runs.published).map(([name, agent]) => ({
      id: name,
      name,
      description: agent.description,
      tags: ['durable-agents'],
      examples: [],
      inputModes: ['text/plain', 'application/json'],
      outputModes: ['text/plain', 'application/json'],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

export function registerA2a(app: Hono, ctx: GatewayContext, secured: boolean): void {
  app.get(CARD_PATH, (c) => c.json(AgentCard.toJSON(cardOf(ctx, ctx.publicUrl(c), secured)) as object));

  app.post('/a2a', async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as { id?: unknown; method?: unknown } | undefined;
    const id = (body?.id ?? null) as string | number | null;
    const auth = ctx.authorize(c);
    if (!auth.ok) return rpcRefusal(c, auth, id);
    if (!body)
      return c.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'the body is not JSON' } }, 400);
    const card = cardOf(ctx, ctx.publicUrl(c), secured);
    const handler = new GatewayA2AHandler(ctx, () => card) as unknown as A2ARequestHandler;
    const version = c.req.header(A2A_VERSION_HEADER) || '0.3';
    const state: CallerState = { caller: auth.caller, may: auth.may };
    const context = new ServerCallContext({ requestedVersion: version, state: new Map([[CALLER_KEY, state]]) });
    let answer;
    try {
      validateVersion(version, card, 'JSONRPC');
      answer =
        version === '0.3'
          ? await new LegacyJsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, context)
          : await new JsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, context);
    } catch (err) {
      return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(err) });
    }
    if (!isStream(answer)) return c.json(answer as object);
    return streamRpc(c, answer, id);
  });
}

const isStream = (v: unknown): v is AsyncGenerator<unknown> =>
  typeof (v as AsyncGenerator<unknown>)?.[Symbol.asyncIterator] === 'function';

/** A streaming call's answers as SSE, one JSON-RPC response each; a failure mid-stream is an error event. */
function streamRpc(c: Context, answers: AsyncGenerator<unknown>, id: string | number | null) {
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (out) => {
    const abort = new AbortController();
    out.onAbort(() => abort.abort());
    try {
      for await (const answer of untilAborted(answers, abort.signal))
        await out.writeSSE({ data: JSON.stringify(answer) });
    } catch (err) {
      const error = JsonRpcTransportHandler.mapToJSONRPCError(err);
      await out.writeSSE({ event: 'error', data: JSON.stringify({ jsonrpc: '2.0', id, error }) });
    }
  });
}
