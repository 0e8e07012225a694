/**
 * One eval case (docs/evals.md): the start of its run, with the case's served results, follow-ups
 * and approval decisions as the run's `eval` record (the run decides the calls the case names and
 * rejects any other itself), and the one way an ended case's run is read and graded, by the eval's
 * grading activity and, for a case with grader functions, by the process that holds them.
 */
import type { StartAgentOptions } from '../client';
import type { AgentEvent } from '../contracts/agent-events';
import type { AgentResult } from '../contracts/agent-run';
import type { CaseOutcome } from '../contracts/eval-workflow';
import { totalTokens } from '../contracts/message-model';
import type { RunMessage } from '../contracts/run-message';
import type { FleetSpec } from '../contracts/run-spec';
import { totalDrift } from '../policy/served-tools';
import type { CaseRun, EvalCase } from './eval-case';
import type { JudgeSettings } from './judge';
import { grade } from './graders';

export type { CaseOutcome } from '../contracts/eval-workflow';

/** How the cases of an eval run. */
export interface CaseSettings {
  /** The model of a case that names none. */
  model?: string;
  /** The fleet the runs work in: its tenant (their budget and fairness key), its priority. */
  fleet?: FleetSpec;
  /** Reads a run's conversation (every call's whole arguments); absent: the arguments its events preview. */
  messages?: (id: string) => Promise<RunMessage[]>;
  /** The model-graded judge of every case (`--judge`); a case's own `judge` is laid over it. */
  judge?: JudgeSettings;
}

/** What a case's ended run is read from: its state (its events) and, when given, its conversation. */
export interface RunReads {
  state(id: string): Promise<object>;
  messages?: (id: string) => Promise<RunMessage[]>;
}

/** The options a case's run starts with. */
export function caseStart(c: EvalCase, settings: CaseSettings): StartAgentOptions {
  const model = c.model ?? settings.model;
  const { fromTurn } = c;
  return {
    // A case from a recorded turn goes on from the conversation up to it: no task of its own.
    task: fromTurn ? '' : c.task,
    ...(fromTurn
      ? { session: { from: { runId: fromTurn.run, conversationId: fromTurn.run, atTurn: fromTurn.atTurn } } }
      : {}),
    ...(model ? { model } : {}),
    ...(c.systemPrompt ? { systemPrompt: c.systemPrompt } : {}),
    ...(c.limits ? { limits: c.limits } : {}),
    ...c.options,
    tools: {
      ...(c.tools ? { allow: c.tools } : {}),
      ...(c.approve ? { approve: c.approve } : {}),
      ...c.options?.tools,
    },
    ...(settings.fleet ? { fleet: settings.fleet } : {}),
    eval: {
      served: c.stubs ?? [],
      ...(c.liveReads ? { liveReads: true } : {}),
      ...(c.followUps?.length ? { followUps: c.followUps } : {}),
      ...(c.steer?.length ? { steer: c.steer } : {}),
      decisions: c.approvals ?? [],
      ...(c.children ? { children: c.children } : {}),
      caseName: c.name,
    },
  };
}

/** The calls a run made, from its conversation. */
const callsIn = (messages: readonly RunMessage[]): CaseRun['toolCalls'] =>
  messages.flatMap((m) =>
    m.role === 'assistant' ? m.toolCalls.map(({ name, arguments: a }) => ({ name, arguments: a })) : [],
  );

/** The calls a run made, from its events' previews (a preview cut short gives no arguments). */
const callsOfEvents = (events: readonly AgentEvent[]): CaseRun['toolCalls'] =>
  events.flatMap((e) => {
    if (e.type !== 'tool_start') return [];
    let args: Record<string, unknown> = {};
    try {
      args = JSON.parse(e.args) as Record<string, unknown>;
    } catch {
      // A preview cut short: the call's arguments are unknown.
    }
    return [{ name: e.tool, arguments: args }];
  });

/** Graders that read the run's events: whether a call asked for approval, and the case's functions. */
const readsEvents = (g: { type: string }): boolean => g.type === 'approval_requested' || g.type === 'check';

/**
 * What the ended run `id` did, as `graders` read it. Its state (its events) is asked of a worker
 * only when a grader reads the events or the run's conversation cannot be read.
 */
export async function caseRunOf(
  reads: RunReads,
  graders: readonly { type: string }[],
  id: string,
  result: AgentResult,
  latencyMs: number,
): Promise<CaseRun> {
  const messages = await reads.messages?.(id).catch(() => undefined);
  const logged = messages && messages.length > 0 ? callsIn(messages) : undefined;
  const view = logged && !graders.some(readsEvents) ? undefined : await reads.state(id);
  const events = view && 'events' in view ? (view.events as AgentEvent[]) : [];
  return {
    result,
    events,
    toolCalls: logged ?? callsOfEvents(events),
    approvalsRequested: events.flatMap((e) => (e.type === 'approval_required' ? [e.tool] : [])),
    latencyMs,
  };
}

/** How `run`, the run `id` of case `c`, is graded, and its figures. */
export async function outcomeOf(c: Pick<EvalCase, 'name' | 'graders'>, id: string, run: CaseRun): Promise<CaseOutcome> {
  const { result, latencyMs } = run;
  const graders = await grade(c.graders, run);
  const failed = graders.find((g) => !g.pass);
  return {
    name: c.name,
    id,
    pass: failed === undefined,
    graders,
    ...(failed ? { failed } : {}),
    stopReason: result.stopReason,
    turns: result.turns,
    tokens: totalTokens(result.usage),
    costUsd: result.costUsd,
    latencyMs,
    drift: totalDrift(result.eval),
  };
}
