/**
 * Cases from recorded runs (docs/evals.md, Replaying recorded runs): a closed run's task, options and
 * tool results (as the served table, by tool, arguments hash and ordinal) make a case, graded by
 * default against what the run did: the same stop reason, the same calls to tools with side effects
 * with the same arguments, within its turns and cost by a tolerance.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AgentClient } from '../client';
import { startInput } from '../client/run-reads';
import { canonicalJson } from '../common/canonical-json';
import type { ServedCall } from '../contracts/eval-spec';
import type { AgentResult } from '../contracts/agent-run';
import { modelLabel } from '../contracts/model-ref';
import type { RunMessage, RunToolCall } from '../contracts/run-message';
import { argsHash } from '../policy/approval-rules';
import type { CaseRun, EvalCase, Grader } from './eval-case';
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

/** How far a replay may go past the recording: 0.1 is 10 % more turns and cost. */
export interface ReplayTolerance {
  tolerance: number;
}

/** The first call to a tool with side effects that differs from the recording, if one does. */
export function firstEffectDifference(recorded: readonly Call[], run: CaseRun): string | undefined {
  const effects = new Set(run.result.eval?.sideEffectTools ?? []);
  const of = (calls: readonly Call[]) => calls.filter((c) => effects.has(c.name));
  const [was, now] = [of(recorded), of(run.toolCalls)];
  const text = (c: Call | undefined) => (c ? `${c.name} ${canonicalJson(c.arguments)}` : 'no call');
  for (let i = 0; i < Math.max(was.length, now.length); i++) {
    if (text(was[i]) !== text(now[i]))
      return `call ${i + 1} with side effects: recorded ${text(was[i])}, replayed ${text(now[i])}`;
  }
  return undefined;
}

/** The default graders of a recorded case. */
export function recordedGraders(result: AgentResult, calls: readonly Call[], { tolerance }: ReplayTolerance): Grader[] {
  const margin = 1 + tolerance;
  return [
    { type: 'stop_reason', is: result.stopReason },
    {
      type: 'check',
      name: 'same calls with side effects',
      check: (run) => firstEffectDifference(calls, run) ?? true,
    },
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
  messages: (id: string) => Promise<RunMessage[]>,
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
  return {
    name: id,
    ...(fromTurn !== undefined ? { fromTurn: { run: id, atTurn: fromTurn } } : {}),
    task: task?.role === 'user' ? task.text : config.task,
    model: options.model ?? modelLabel(config.model.primary),
    ...(config.systemPrompt ? { systemPrompt: config.systemPrompt } : {}),
    ...(config.tools.allow ? { tools: config.tools.allow } : {}),
    ...(config.tools.approve?.length ? { approve: config.tools.approve } : {}),
    stubs: served,
    approvals: (config.tools.approve ?? []).map((tool) => ({ tool, decision: 'approve' as const })),
    limits: { maxTurns: config.limits.maxTurns },
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
  return outcomeOf(c, id, await caseRunOf(reads, id, result, latencyMs));
}
