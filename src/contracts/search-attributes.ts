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
