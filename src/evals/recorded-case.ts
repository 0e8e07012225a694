/**
 * Cases from recorded runs (docs/evals.md, Replaying recorded runs): a closed run's task, options and
 * tool results (as the served table, by tool, arguments hash and ordinal) make a case, graded by
 * default against what the run did: the same stop reason, the same calls to tools with side effects
 * with the same arguments, within its turns and cost by a tolerance.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AgentClient } from '../client';
import { startInput } from '../client/run-reads';
import type { EvalSpec, RecordedChildren, ServedCall } from '../contracts/eval-spec';
import type { AgentResult } from '../contracts/agent-run';
import { modelLabel } from '../contracts/model-ref';
import type { RunMessage, RunToolCall } from '../contracts/run-message';
import { argsHash } from '../policy/approval-rules';
import { childWorkflowId } from '../policy/sub-agents';
import type { EvalCase, Grader } from './eval-case';
import { caseJudge, judgeRun, judgedOutcome } from './judge';
import { caseRunOf, outcomeOf, type CaseOutcome, type CaseSettings } from './run-case';
import { EvalInputError } from './suite';

type Call = Pick<RunToolCall, 'name' | 'arguments'>;

/**
 * The recorded calls and their results as the served table: one row per tool and arguments, results
 * in order. The calls of the turns up to `afterTurn` (a case that starts there) are not served again.
 */
export function servedTable(messages: readonly RunMessage[], afterTurn = 0): { calls: Call[]; served: ServedCall[] } {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const m of messages)
    if (m.role === 'tool_result') results.set(m.toolCallId, { text: m.text, isError: m.isError });
  const calls: Call[] = [];
  const rows = new Map<string, ServedCall>();
  let turn = 0;
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    turn++;
    for (const call of m.toolCalls) {
      calls.push({ name: call.name, arguments: call.arguments });
      const result = results.get(call.id);
      if (!result || turn <= afterTurn) continue;
      const hash = argsHash(call.arguments);
      const key = `${call.name}:${hash}`;
      const row = rows.get(key) ?? { tool: call.name, argsHash: hash, results: [] };
      row.results.push(result.isError ? { text: result.text, isError: true } : { text: result.text });
      rows.set(key, row);
    }
  }
  return { calls, served: [...rows.values()] };
}

type Messages = (id: string) => Promise<RunMessage[]>;

/**
 * The recorded children of the run `id`'s calls of its sub-agents (`agents`, by name), each with
 * its own served table and children, read from the store; a child whose conversation is not there
 * gets an empty table. The calls of the turns up to `afterTurn` are left out, as their results are.
 */
export async function recordedChildren(
  id: string,
  log: readonly RunMessage[],
  agents: readonly string[],
  messages: Messages,
  afterTurn = 0,
): Promise<RecordedChildren[]> {
  const groups = new Map<string, { agent: string; argsHash: string; runs: Promise<EvalSpec>[] }>();
  let turn = 0;
  for (const m of log) {
    if (m.role !== 'assistant' || ++turn <= afterTurn) continue;
    for (const call of m.toolCalls) {
      if (!agents.includes(call.name)) continue;
      const hash = argsHash(call.arguments);
      const group = groups.get(`${call.name}:${hash}`) ?? { agent: call.name, argsHash: hash, runs: [] };
      groups.set(`${call.name}:${hash}`, group);
      group.runs.push(recordedChild(childWorkflowId(id, call.name, call.id), agents, messages));
    }
  }
  return Promise.all([...groups.values()].map(async (g) => ({ ...g, runs: await Promise.all(g.runs) })));
}

/** The eval record of the recorded child run `id`: its served table and its own children. */
async function recordedChild(id: string, agents: readonly string[], messages: Messages): Promise<EvalSpec> {
  const log = await messages(id).catch((): RunMessage[] => []);
  return { served: servedTable(log).served, children: await recordedChildren(id, log, agents, messages) };
}

/** How far a replay may go past the recording: 0.1 is 10 % more turns and cost. */
export interface ReplayTolerance {
  tolerance: number;
}

/** The default graders of a recorded case. */
export function recordedGraders(result: AgentResult, calls: readonly Call[], { tolerance }: ReplayTolerance): Grader[] {
  const margin = 1 + tolerance;
  return [
    { type: 'stop_reason', is: result.stopReason },
    { type: 'effects_as_recorded', name: 'same calls with side effects', calls: [...calls] },
    {
      type: 'within',
      name: 'within the recorded turns and cost',
      turns: { max: Math.ceil(result.turns * margin) },
      ...(result.costUsd > 0 ? { costUsd: { max: result.costUsd * margin } } : {}),
    },
  ];
}

/** A case from the closed run `id`, on its recorded model unless `model` names another. */
export async function recordedCase(
  agents: AgentClient,
  client: Client,
  id: string,
  messages: Messages,
  options: ReplayTolerance & { model?: string; fromTurn?: number },
): Promise<EvalCase> {
  const described = await client.workflow
    .getHandle(id)
    .describe()
    .catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) throw new EvalInputError(`no run "${id}"`);
      throw err;
    });
  if (described.status.name === 'RUNNING') throw new EvalInputError(`run "${id}" is still open: replay closed runs`);
  const [result, input, log] = await Promise.all([agents.result(id), startInput(client, id), messages(id)]);
  if (!input) throw new EvalInputError(`run "${id}" is not an agent run`);
  if (log.length === 0) throw new EvalInputError(`run "${id}": its conversation is not in the content store`);
  const { config } = input;
  const task = log.find((m) => m.role === 'user' && m.origin === 'task');
  const { fromTurn } = options;
  if (fromTurn !== undefined && fromTurn >= result.turns)
    throw new EvalInputError(`run "${id}" took ${result.turns} turns: --from-turn must be below that`);
  const { calls, served } = servedTable(log, fromTurn);
  const children = await recordedChildren(id, log, Object.keys(config.agents ?? {}), messages, fromTurn);
  return {
    name: id,
    ...(fromTurn !== undefined ? { fromTurn: { run: id, atTurn: fromTurn } } : {}),
    task: task?.role === 'user' ? task.text : config.task,
    model: options.model ?? modelLabel(config.model.primary),
    ...(config.systemPrompt ? { systemPrompt: config.systemPrompt } : {}),
    ...(config.tools.allow ? { tools: config.tools.allow } : {}),
    ...(config.tools.approve?.length ? { approve: config.tools.approve } : {}),
    stubs: served,
    children,
    approvals: (config.tools.approve ?? []).map((tool) => ({ tool, decision: 'approve' as const })),
    limits: { maxTurns: config.limits.maxTurns },
    ...(config.agents ? { options: { agents: config.agents } } : {}),
    graders: recordedGraders(result, calls, options),
  };
}

/**
 * The observed lane: the recorded run of case `c` (named by its id) as it was, graded by the
 * case's graders, with its recorded turns, tokens, cost and time from start to close.
 */
export async function observedOutcome(agents: AgentClient, c: EvalCase, settings: CaseSettings): Promise<CaseOutcome> {
  const id = c.name;
  const [result, described] = await Promise.all([agents.result(id), agents.client.workflow.getHandle(id).describe()]);
  const { startTime, closeTime } = described;
  const latencyMs = (closeTime ?? startTime).getTime() - startTime.getTime();
  const reads = { state: (run: string) => agents.state(run), messages: settings.messages };
  const run = await caseRunOf(reads, c.graders, id, result, latencyMs);
  const outcome = await outcomeOf(c, id, run);
  const judge = caseJudge(c, settings.judge);
  if (!judge) return outcome;
  return judgedOutcome(outcome, await judgeRun(agents, { id, task: c.task, run, fleet: settings.fleet }, judge));
}
