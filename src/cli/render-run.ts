/** Text forms of results, state and traces for the agent commands. */
import { oneLine } from '../common/error-text';
import type { AgentResult, AgentStateView } from '../contracts/agent-run';
import type { RunBilling } from '../contracts/run-stats';
import { shownRunStatus } from '../contracts/run-status';
import { totalTokens } from '../contracts/message-model';
import type { ChildTrace, RunTrace } from '../client/trace';
import type { EndedFromOutsideView } from '../client/run-reads';
import type { KindRegistry } from '../kinds';
import { approvalCommands, waitCommands, waitingOn, type WaitingOn } from './decision-hints';
import { plural } from './watch-output';
import { childOrigin } from '../policy/sub-agents';
import { ASK_USER, questionOf } from '../policy/ask-user';
import { tokensInOut } from '../policy/billing';
import { usd } from '../common/decimal';

/** The billed tokens and cost: input (with what came from and went to the prompt cache), output, dollars. */
function billingLine(b: RunBilling): string {
  const share = Math.round(b.cacheReadShare * 100);
  return (
    `billed ${b.inputTokens} input tokens (cache read ${b.cacheReadTokens}, ${share}% · cache write ` +
    `${b.cacheWriteTokens}) and ${b.outputTokens} output · ${usd(b.cost.total)}`
  );
}

function usageLine(r: { usage: AgentResult['usage']; costUsd: number; billing?: RunBilling }): string {
  if (r.billing) return billingLine(r.billing);
  const u = r.usage;
  return (
    `tokens ${totalTokens(u)} (in ${u.inputTokens}, out ${u.outputTokens}, cache read ` +
    `${u.cacheReadTokens}, cache write ${u.cacheWriteTokens}) · ${usd(r.costUsd)}`
  );
}

/** A run's status, with its stop reason when that says more (`stopped (max_turns)`). */
export const statusWithReason = (status: string, stopReason: string | undefined): string => {
  const shown = shownRunStatus(status, stopReason);
  return stopReason && stopReason !== shown ? `${shown} (${stopReason})` : shown;
};

/**
 * How a run ended, without its final text or its error (see {@link errorLine}); a run a feature's
 * refusal stopped (its tenant's budget) says why on a second line.
 */
export function formatSummary(r: AgentResult): string {
  const summary =
    `${r.id}: ${statusWithReason(r.status, r.stopReason)} after ${plural(r.turns, 'turn')} on ` +
    `${r.model} · ${usageLine(r)}`;
  return r.stopNote ? `${summary}\nstopped by ${oneLine(r.stopNote)}` : summary;
}

/** The run's error as one line for stderr, when it has one. */
export function errorLine(r: Pick<AgentResult, 'id' | 'error'>): string | undefined {
  if (!r.error) return undefined;
  return `durable-agents: run ${r.id} failed: ${r.error.type ?? 'error'}: ${oneLine(r.error.message)}`;
}

/** The result for stdout: the final text (a placeholder when a run without an error has none), then the summary. */
export function formatResult(r: AgentResult): string {
  const text = r.finalText || (r.error ? undefined : '(no final text)');
  return [...(text === undefined ? [] : [text, '']), formatSummary(r)].join('\n');
}

/**
 * The state as text; `kinds` give the lines of its kind's own fields and what else it waits for.
 * With the calls waiting in its open children (sub-agents), each decided through the run.
 * `prefix` starts the commands it names (`durable-agents` and the server flags).
 */
export function formatState(s: AgentStateView, kinds: KindRegistry, prefix: string): string {
  const ended = 'closedAs' in s ? (s as EndedFromOutsideView) : undefined;
  const status = ended ? `${ended.closedAs} (while ${ended.lastStatus})` : statusWithReason(s.status, s.stopReason);
  const lines = [
    `${s.id} (${s.kind}): ${status}`,
    `turn ${s.turn} of ${s.limits.maxTurns} · model ${s.model} · ${usageLine(s)}`,
  ];
  if (s.parent) lines.push(`sub-agent ${s.parent.agent} of ${s.parent.workflowId} (depth ${s.parent.depth})`);
  if (s.tenantBudget?.waiting)
    lines.push(`waiting for tenant ${s.tenantBudget.tenant}'s budget: ${s.tenantBudget.waiting}`);
  if (s.tenantBudget?.refused)
    lines.push(`refused by tenant ${s.tenantBudget.tenant}'s budget: ${s.tenantBudget.refused}`);
  const approvals: WaitingOn['approvals'] = [...s.pendingApprovals, ...(s.childApprovals ?? [])];
  for (const a of approvals)
    lines.push(
      `awaiting approval${a.runId ? ` in ${a.runId}` : ''}: ${a.toolCallId} ${a.tool} ${JSON.stringify(a.args)}`,
      ...approvalCommands(prefix, s.id, a.toolCallId),
    );
  const { wait } = ended ? {} : waitingOn(s, kinds);
  if (wait) lines.push(`awaiting ${wait.what}:`, ...waitCommands(prefix, s.id, wait));
  for (const c of s.children ?? [])
    lines.push(
      `child ${c.id} (${c.agent}, ${childOrigin(c)}): ${statusWithReason(c.status, c.stopReason)}` +
        ` · ${tokensInOut(c.usage)} tokens · ${usd(c.costUsd)}`,
    );
  for (const c of s.clientToolRequests)
    lines.push(
      ...(c.tool === ASK_USER
        ? [`asks the user: ${questionOf(c.args)}`, `  answer: ${prefix} answer ${s.id} TEXT --call ${c.toolCallId}`]
        : [`awaiting client result: ${c.toolCallId} ${c.tool} ${JSON.stringify(c.args)}`]),
    );
  for (const c of s.childClientToolRequests ?? [])
    lines.push(
      `awaiting client result in ${c.runId}: ${c.toolCallId} ${c.tool} ${JSON.stringify(c.args)}`,
      `  answer: ${prefix} tool-result ${s.id} ${c.toolCallId} JSON`,
    );
  if (s.steeringQueued || s.followUpsQueued)
    lines.push(`queued: ${s.steeringQueued} steering, ${s.followUpsQueued} follow-up`);
  lines.push(...kinds.stateLines(s));
  const last = s.events.slice(-5).map((e) => e.type);
  if (last.length) lines.push(`recent events: ${last.join(', ')}`);
  if (s.error) lines.push(`error: ${s.error.type ?? 'error'}: ${s.error.message}`);
  return lines.join('\n');
}

const seconds = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`);

/** A child's trace, indented under what started it. */
function childLines(c: ChildTrace, indent: string): string[] {
  const head = `${indent}sub-agent ${c.agent} (${childOrigin(c)}) ran as ${c.id}:`;
  if (!c.trace) return [head, `${indent}  (its trace could not be read: ${c.unread ?? 'unknown'})`];
  return [
    head,
    ...formatTrace(c.trace)
      .split('\n')
      .map((line) => `${indent}  ${line}`),
  ];
}

/** `1 failed call (3 attempts)`: the model calls that failed, and their attempts when they made more. */
function failedCalls(calls: number, attempts: number | undefined): string {
  const more = attempts !== undefined && attempts > calls ? ` (${plural(attempts, 'attempt')})` : '';
  return `${plural(calls, 'failed call')}${more}`;
}

/**
 * The trace as text: how the run ended, model and tool totals, then its steps; each child run's
 * trace (when read) under the call that started it, or after the step of the todo it executed.
 */
export function formatTrace(t: RunTrace): string {
  const placed = new Set<ChildTrace>();
  const children = (step: number, toolCallId?: string): ChildTrace[] =>
    (t.children ?? []).filter(
      (c) => !placed.has(c) && c.turn === step && (toolCallId === undefined || c.toolCallId === toolCallId),
    );
  const lines = [
    `${t.id} (${t.kind}): ${statusWithReason(t.status, t.stopReason)} · ` +
      `${plural(t.turns, 'turn')}${t.elapsedMs !== undefined ? ` in ${seconds(t.elapsedMs)}` : ''} · ${t.model}`,
    t.billing
      ? `tokens: ${billingLine(t.billing)}`
      : `tokens: ${t.usage.inputTokens} in, ${t.usage.outputTokens} out, ${t.usage.cacheReadTokens} cache read, ` +
        `${t.usage.cacheWriteTokens} cache write · ${usd(t.costUsd)}`,
  ];
  if (t.modelCalls !== undefined) {
    const first = t.firstAnswerMs !== undefined ? `, first answer after ${seconds(t.firstAnswerMs)}` : '';
    lines.push(
      `model: ${plural(t.modelCalls, 'call')}, ${seconds(t.modelMs ?? 0)} waiting for answers${first}, ` +
        failedCalls(t.modelFailures ?? 0, t.modelFailedAttempts),
    );
  }
  const tools = Object.entries(t.tools).sort(([a], [b]) => a.localeCompare(b));
  if (tools.length) {
    lines.push('tools:');
    for (const [name, s] of tools) {
      const extra = [s.errors ? plural(s.errors, 'error') : '', s.skipped ? `${s.skipped} not run` : '']
        .filter(Boolean)
        .join(', ');
      lines.push(
        `  ${name}: ${plural(s.calls, 'call')}, ${seconds(s.totalMs)} (max ` +
          `${seconds(s.maxMs)})${extra ? `, ${extra}` : ''}`,
      );
    }
  }
  const fromStore = t.stepsFromStore
    ? `${plural(t.stepsFromStore, 'step')} read from the content store, without durations or notes`
    : undefined;
  if (t.droppedEvents)
    lines.push(
      `(${plural(t.droppedEvents, 'earlier event')} no longer kept: ` +
        `${fromStore ?? 'the first steps are missing'}; the totals are whole)`,
    );
  else if (fromStore) lines.push(`(${fromStore})`);
  if (t.steps.length) lines.push('steps:');
  for (const step of t.steps) {
    const answer = [
      step.model,
      step.modelMs !== undefined ? seconds(step.modelMs) : '',
      step.stopReason ?? '',
      step.usage ? tokensInOut(step.usage) : '',
    ]
      .filter(Boolean)
      .join(' · ');
    // What happened before the first turn's model call (a pev run's first phase) has no answer.
    lines.push(step.turn === 0 ? '  before turn 1:' : `  turn ${step.turn}: ${answer}`);
    if (step.thought) lines.push(`    thought: ${step.thought}`);
    let noted = 0;
    const notesUpTo = (n: number) => {
      for (; noted < Math.min(n, step.notes.length); noted++) lines.push(`    ${step.notes[noted]}`);
    };
    for (const c of step.tools) {
      notesUpTo(c.notesBefore ?? 0);
      const how = c.skipped
        ? `not run: ${c.skipped}`
        : [c.durationMs !== undefined ? seconds(c.durationMs) : '', c.isError ? 'error' : '']
            .filter(Boolean)
            .join(', ');
      lines.push(`    ${c.tool} (${c.toolCallId})${c.args ? ` ${c.args}` : ''}${how ? ` ${how}` : ''}`);
      const seen = c.error ?? c.observation;
      if (seen) lines.push(`      -> ${seen}`);
      for (const child of children(step.turn, c.toolCallId)) {
        placed.add(child);
        lines.push(...childLines(child, '      '));
      }
    }
    notesUpTo(step.notes.length);
    for (const child of children(step.turn)) {
      placed.add(child);
      lines.push(...childLines(child, '    '));
    }
  }
  for (const child of (t.children ?? []).filter((c) => !placed.has(c))) lines.push(...childLines(child, '  '));
  if (t.finalText) lines.push(`final: ${t.finalText}`);
  return lines.join('\n');
}
