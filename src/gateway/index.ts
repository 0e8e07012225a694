/** The gateway that publishes agents over MCP, A2A, AG-UI and Open Responses (docs/gateway.md). */
export { startGateway, gatewayProblems, GATEWAY_PROTOCOLS } from './server';
export type { Gateway, GatewayOptions, GatewayProtocol } from './server';
export { readApiKeys } from './api-keys';
export type { ApiKeyEntry } from './api-keys';
export type { PublishedAgents } from './published-agents';
export type { RunDefaults } from './run-start';
export type { RunFeed } from './token-source';
