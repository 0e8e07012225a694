/**
 * `durable-agents serve`: one stateless HTTP server (Hono on Node) that publishes agents over MCP,
 * A2A, AG-UI and Open Responses, using the client library for every run. Any number of replicas
 * serve the same runs: a run id is every protocol's task id, and nothing is kept between requests
 * but each key's request budget.
 */
import type { TokenStreamReader } from '../contracts/token-stream';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AgentClient } from '../client';
import { registerA2a } from './a2a';
import { registerAgUi } from './ag-ui';
import { registerMcp } from './mcp';
import { registerResponses } from './responses';
import { ApiKeys, isLoopback, type ApiKeyEntry } from './api-keys';
import { authorizer, type GatewayContext } from './gateway-context';
import { publishedAgentProblems, type PublishedAgents } from './published-agents';
import { GatewayRuns } from './run-bridge';
import type { RunDefaults } from './run-start';
import { watchFeed, type RunFeed } from './token-source';

export type GatewayProtocol = 'mcp' | 'a2a' | 'ag-ui' | 'responses';
export const GATEWAY_PROTOCOLS: readonly GatewayProtocol[] = ['mcp', 'a2a', 'ag-ui', 'responses'];

export interface GatewayOptions {
  agents: AgentClient;
  /** The agents it publishes, declared as sub-agents are. */
  published: PublishedAgents;
  defaults?: RunDefaults;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. Any other address needs `keys`. */
  host?: string;
  /** The API keys that may call it; required off loopback. */
  keys?: ApiKeyEntry[];
  /** The protocols it serves; default all. */
  protocols?: readonly GatewayProtocol[];
  /**
   * Where the workers stream runs' tokens: their content store. Without it (and without a store on
   * the client) clients get a run's events and its final text, but no tokens.
   */
  tokens?: TokenStreamReader;
  /** Where runs' events and tokens are read; default the client's watch with `tokens`. */
  feed?: RunFeed;
  /** The URL clients reach it at, for the A2A card (default: the request's own origin). */
  publicUrl?: string;
  /** Where it logs one line per refused or failed request; never a key or a message body. */
  log?: (line: string) => void;
}

export interface Gateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** What a gateway with these options refuses to start for, one line each. */
export function gatewayProblems(options: Pick<GatewayOptions, 'host' | 'keys' | 'published'>): string[] {
  const host = options.host ?? '127.0.0.1';
  return [
    ...publishedAgentProblems(options.published),
    ...(!isLoopback(host) && !options.keys?.length
      ? [`the gateway binds ${host}, beyond this machine: give it an API key file (--keys FILE)`]
      : []),
  ];
}

/** The gateway's routes, without a server: for tests, and for hosting it in another Node server. */
export function gatewayApp(options: GatewayOptions): Hono {
  const log = options.log ?? (() => undefined);
  const ctx: GatewayContext = {
    runs: new GatewayRuns(
      options.agents,
      options.published,
      options.feed ?? watchFeed(options.agents, options.tokens),
      options.defaults,
    ),
    authorize: authorizer(options.keys?.length ? new ApiKeys(options.keys) : undefined),
    publicUrl: (c) => options.publicUrl ?? new URL(c.req.url).origin,
    log,
  };
  const app = new Hono();
  app.onError((err, c) => {
    log(`${c.req.method} ${new URL(c.req.url).pathname} failed: ${err.message}`);
    return c.json({ error: 'internal error' }, 500);
  });
  const protocols = new Set(options.protocols ?? GATEWAY_PROTOCOLS);
  if (protocols.has('ag-ui')) registerAgUi(app, ctx);
  if (protocols.has('responses')) registerResponses(app, ctx);
  if (protocols.has('mcp')) registerMcp(app, ctx);
  if (protocols.has('a2a')) registerA2a(app, ctx, Boolean(options.keys?.length));
  return app;
}

/** Starts a gateway; refuses (throws one line) on a problem {@link gatewayProblems} names. */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const problems = gatewayProblems(options);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const app = gatewayApp(options);
  const host = options.host ?? '127.0.0.1';
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 8080, hostname: host }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
