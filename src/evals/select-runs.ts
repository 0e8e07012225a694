/**
 * The recorded runs a visibility query selects (docs/evals.md, Replaying recorded runs): closed
 * agent runs it matches, and the runs of the score records it matches (a cohort such as
 * `DurableAgentScoreName = 'helpful' AND DurableAgentScore < 0.5`), newest first, each once.
 */
import type { Client } from '@temporalio/client';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../contracts/search-attributes';
import { errorText } from '../common/error-text';
import { EvalInputError } from './suite';

/** What a query selected: the runs to replay, and the open runs it matched and left out. */
export interface SelectedRuns {
  runs: string[];
  open: number;
}

/** A scored run's status; undefined when it is gone (past the namespace's retention). */
const statusOf = (client: Client, id: string): Promise<string | undefined> =>
  client.workflow
    .getHandle(id)
    .describe()
    .then((d) => d.status.name as string)
    .catch(() => undefined);

export async function selectRecordedRuns(client: Client, query: string, limit: number): Promise<SelectedRuns> {
  const runs = new Set<string>();
  let open = 0;
  try {
    for await (const wf of client.workflow.list({ query, pageSize: Math.min(100, Math.max(limit, 10)) })) {
      const scored = wf.typedSearchAttributes.get(SA.scoredRun);
      const id = scored ?? wf.workflowId;
      if (runs.has(id) || (scored === undefined && wf.typedSearchAttributes.get(SA.kind) === undefined)) continue;
      const status = scored === undefined ? wf.status.name : await statusOf(client, scored);
      if (status === 'RUNNING') open++;
      else if (status !== undefined) runs.add(id);
      if (runs.size >= limit) break;
    }
  } catch (err) {
    throw new EvalInputError(`--query ${JSON.stringify(query)}: ${errorText(err)}`);
  }
  return { runs: [...runs], open };
}
