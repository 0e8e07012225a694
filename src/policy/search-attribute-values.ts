/**
 * Which DurableAgent* search attributes a run upserts, and when (docs/design.md, History per turn).
 * An upsert is a history event, so a run writes only the values that changed, and the cost only
 * when it has grown by a step: a filter on cost sees a value that lags the real one by less than
 * the step while the run works, and the exact figure whenever another value changes (the status
 * at the end above all).
 */

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
