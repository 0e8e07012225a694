/**
 * Which DurableAgent* search attributes a run upserts, and when (docs/design.md, History per turn).
 * An upsert is a history event, so a run writes only the values that changed, and the cost only
 * when it has grown by a step: a filter on cost sees a value that lags the real one by less than
 * the step while the run works, and the exact figure whenever another value changes (the status
 * at the end above all).
 */
import type { SearchAttributePair } from '@temporalio/common';
import type { AgentConfig } from '../contracts/run-spec';
import { modelLabel } from '../contracts/model-ref';
import { AGENT_SEARCH_ATTRIBUTES as SA, TASK_ATTRIBUTE_CHARS } from '../contracts/search-attributes';
import { clip } from './previews';

/** The task's first non-empty line, whitespace collapsed. */
export function firstLine(task: string): string {
  const line = task.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.replace(/\s+/g, ' ').trim();
}

/**
 * Text as a Text search attribute holds it, so that every visibility store takes it. PostgreSQL's
 * visibility reads the value as a tsvector literal, in which `:` after a word starts its positions
 * (digits only) and `\` escapes the next character: a `Fix: the bug` would fail the run's
 * visibility record, and the run would never be listed. Both become spaces, so each word around
 * them stays a word of its own and is found as before.
 */
export const textAttributeValue = (text: string): string => text.replace(/[:\\]/g, ' ').replace(/\s+/g, ' ').trim();

/**
 * Every project search attribute, as a run is before a worker has picked it up: set by what
 * starts it (the client, or a parent for its child run).
 */
export function startSearchAttributes(config: AgentConfig, task: string): SearchAttributePair[] {
  const line = textAttributeValue(firstLine(task));
  return [
    { key: SA.kind, value: config.kind },
    { key: SA.phase, value: 'queued' },
    { key: SA.model, value: modelLabel(config.model.primary) },
    { key: SA.status, value: 'running' },
    { key: SA.awaitingApproval, value: false },
    { key: SA.costUsd, value: 0 },
    { key: SA.task, value: clip(line, TASK_ATTRIBUTE_CHARS) },
    ...(config.fleet?.tenant === undefined ? [] : [{ key: SA.tenant, value: config.fleet?.tenant }]),
  ];
}

/** The values a run publishes, one per DurableAgent* attribute. */
export interface AgentAttributeValues {
  kind: string;
  phase: string;
  model: string;
  status: string;
  awaitingApproval: boolean;
  costUsd: number;
}

/** The cost is upserted on its own once it has grown by this factor since it was last written. */
export const COST_PUBLISH_STEP = 1.25;

/** The cost as the attribute holds it: rounded to a millionth of a dollar. */
export const publishedCost = (costUsd: number): number => Math.round(costUsd * 1e6) / 1e6;

/**
 * The values to upsert so the attributes show `next`, given what they show now (`published`;
 * a missing key has never been written). Empty when nothing worth an event changed.
 */
export function attributeChanges(
  published: Partial<AgentAttributeValues>,
  next: AgentAttributeValues,
): Partial<AgentAttributeValues> {
  const changes: Partial<AgentAttributeValues> = {};
  const set = changes as Record<string, unknown>;
  for (const key of ['kind', 'phase', 'model', 'status', 'awaitingApproval'] as const) {
    if (published[key] !== next[key]) set[key] = next[key];
  }
  const cost = publishedCost(next.costUsd);
  const before = published.costUsd;
  if (before === undefined) changes.costUsd = cost;
  else if (cost !== before && (Object.keys(changes).length > 0 || cost >= before * COST_PUBLISH_STEP))
    changes.costUsd = cost;
  return changes;
}
