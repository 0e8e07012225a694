/**
 * The custom search attributes of agent runs, defined once. Runs upsert them (filter runs in the
 * Temporal UI or with `temporal workflow list --query`); the dev-server launcher, the server
 * registration and docker-compose's setup service register the same names and types.
 */
import { defineSearchAttributeKey, type SearchAttributeType } from '@temporalio/common';

export const AGENT_SEARCH_ATTRIBUTES = {
  kind: defineSearchAttributeKey('DurableAgentKind', 'KEYWORD'),
  phase: defineSearchAttributeKey('DurableAgentPhase', 'KEYWORD'),
  model: defineSearchAttributeKey('DurableAgentModel', 'KEYWORD'),
  status: defineSearchAttributeKey('DurableAgentStatus', 'KEYWORD'),
  awaitingApproval: defineSearchAttributeKey('DurableAgentAwaitingApproval', 'BOOL'),
  costUsd: defineSearchAttributeKey('DurableAgentCostUsd', 'DOUBLE'),
} as const;

/** The type as the Temporal CLI spells it (`KEYWORD_LIST` → `KeywordList`). */
export const cliTypeName = (type: SearchAttributeType): string =>
  type
    .toLowerCase()
    .split('_')
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');

/** Name → CLI type of every agent search attribute: what a server must have registered. */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(AGENT_SEARCH_ATTRIBUTES).map((key) => [key.name, cliTypeName(key.type)]),
);
