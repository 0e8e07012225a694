/**
 * Scores on runs from the client (docs/evals.md, Scores on production runs): each score is a
 * record of its own (contracts/run-scores.ts), started on the scored run's task queue with its
 * search attributes and memo set, so it is indexed at once, with or without a worker polling.
 * Scoring a run again under the same name replaces its record.
 */
import { WorkflowIdReusePolicy, isGrpcServiceError, type Client } from '@temporalio/client';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../contracts/search-attributes';
import { SCORE_NAME, SCORE_RECORD_WORKFLOW, scoreRecordId, type RunScore } from '../contracts/run-scores';
import { AgentClientError } from './client-errors';
import { describeOrExplain } from './run-reads';

/** gRPC's status code for an execution the server does not have. */
const GRPC_NOT_FOUND = 5;

/** Removes a run's record of one score, if it has one (a closed record cannot be written again in place). */
async function removeRecord(client: Client, workflowId: string): Promise<void> {
  try {
    await client.workflowService.deleteWorkflowExecution({
      namespace: client.options.namespace,
      workflowExecution: { workflowId },
    });
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND)) throw err;
  }
}

/** Gives the agent run `run` a score: refused in one line for an unknown run or a bad name or value. */
export async function scoreRun(
  client: Client,
  run: string,
  { name, value, comment }: Pick<RunScore, 'name' | 'value' | 'comment'>,
): Promise<RunScore> {
  if (!SCORE_NAME.test(name))
    throw new AgentClientError(`score name "${name}": use letters, digits, _, - and . (at most 64)`);
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new AgentClientError(`score ${name}: the value must be a number`);
  const described = await describeOrExplain(client, run);
  if (described.typedSearchAttributes.get(SA.kind) === undefined)
    throw new AgentClientError(`"${run}" is not an agent run: only agent runs are scored`);
  const score: RunScore = {
    run,
    name,
    value,
    ...(comment ? { comment } : {}),
    at: new Date().toISOString(),
  };
  const workflowId = scoreRecordId(run, name);
  await removeRecord(client, workflowId);
  await client.workflow.start(SCORE_RECORD_WORKFLOW, {
    workflowId,
    taskQueue: described.taskQueue,
    args: [score],
    memo: { score },
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    typedSearchAttributes: [
      { key: SA.scoredRun, value: run },
      { key: SA.scoreName, value: name },
      { key: SA.score, value },
    ],
    staticSummary: `score ${name} = ${value} on ${run}`,
  });
  return score;
}

/** The scores of `run`, by name (the latest of each), as visibility holds them. */
export async function runScores(client: Client, run: string): Promise<RunScore[]> {
  await describeOrExplain(client, run);
  const byName = new Map<string, RunScore>();
  const escaped = run.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
  for await (const wf of client.workflow.list({ query: `${SA.scoredRun.name} = '${escaped}'` })) {
    const score = wf.memo?.score as RunScore | undefined;
    if (!score) continue;
    const seen = byName.get(score.name);
    if (!seen || seen.at < score.at) byName.set(score.name, score);
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}
