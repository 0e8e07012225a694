/** The gateway that publishes agents over MCP, A2A, AG-UI and Open Responses (docs/gateway.md). */
export { startGateway, gatewayApp, gatewayProblems, GATEWAY_PROTOCOLS } from './server';
export type { Gateway, GatewayOptions, GatewayProtocol } from './server';
export { readApiKeys, isLoopback } from './api-keys';
export type { ApiKeyEntry } from './api-keys';
export { publishedAgentProblems } from './published-agents';
export type { PublishedAgent, PublishedAgents } from './published-agents';
export { startOptionsFor } from './run-start';
export type { RunDefaults, RunRequest, Caller } from './run-start';
export type { RunFeed } from './token-source';
