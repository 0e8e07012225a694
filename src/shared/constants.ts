/** Names shared by the worker, the client and the workflows. */

/** Default task queue of the project's worker. Override with `DURABLE_AGENTS_TASK_QUEUE`. */
export const DEFAULT_TASK_QUEUE = 'durable-agents';

/**
 * Custom search attributes the dev-server launcher registers at start, so runs can be
 * filtered in the Temporal UI and by `temporal workflow list --query`.
 */
export const SEARCH_ATTRIBUTES = {
  DurableAgentKind: 'Keyword',
  DurableAgentPhase: 'Keyword',
  DurableAgentModel: 'Keyword',
  DurableAgentStatus: 'Keyword',
  DurableAgentAwaitingApproval: 'Bool',
  DurableAgentCostUsd: 'Double',
} as const;

export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;
