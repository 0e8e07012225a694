/**
 * The custom search attributes of agent runs, defined once. The client sets every one when it starts a
 * run, so a run no worker has picked up yet is findable; the run upserts them as it works (filter runs in
 * the Temporal UI or with `temporal workflow list --query`); the dev-server launcher, the server
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
  /** The task's first line (at most {@link TASK_ATTRIBUTE_CHARS} characters), set when the run starts. */
  task: defineSearchAttributeKey('DurableAgentTask', 'TEXT'),
  /** How the run ended (its `AgentStopReason`), written as it ends. */
  stopReason: defineSearchAttributeKey('DurableAgentStopReason', 'KEYWORD'),
  /** The tenant the run works for, when it names one. */
  tenant: defineSearchAttributeKey('DurableAgentTenant', 'KEYWORD'),
  /** On a score record (`contracts/run-scores.ts`), not a run: the run it scores, the score's name and value. */
  scoredRun: defineSearchAttributeKey('DurableAgentScoredRun', 'KEYWORD'),
  scoreName: defineSearchAttributeKey('DurableAgentScoreName', 'KEYWORD'),
  score: defineSearchAttributeKey('DurableAgentScore', 'DOUBLE'),
} as const;

/**
 * Temporal's own attribute on runs a schedule started: the schedule's id. The server sets and registers it;
 * it is not one of the project's.
 */
export const SCHEDULED_BY = defineSearchAttributeKey('TemporalScheduledById', 'KEYWORD');

/** Characters of the task's first line kept in `DurableAgentTask` (a value may have at most 2 KiB). */
export const TASK_ATTRIBUTE_CHARS = 200;

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
