/**
 * Runs one eval case (docs/evals.md): starts its run with the case's served results as the run's
 * `eval` record and its follow-ups queued, gives the approvals the case names (and rejects any
 * other), waits for the result and grades it.
 */
import type { AgentClient, StartAgentOptions } from '../client';
import type { AgentEvent } from '../contracts/agent-events';
import type { AgentResult } from '../contracts/agent-run';
import { totalTokens } from '../contracts/message-model';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../contracts/search-attributes';
import type { RunMessage } from '../contracts/run-message';
import type { CaseRun, EvalCase } from './eval-case';
import { grade, type GraderOutcome } from './graders';

/** How the cases of an eval run. */
export interface CaseSettings {
  /** The model of a case that names none. */
  model?: string;
  /** The tenant the runs work for (their budget and fairness key). */
  tenant: string;
  /** Reads a run's conversation (every call's whole arguments); absent: the arguments its events preview. */
  messages?: (id: string) => Promise<RunMessage[]>;
  /** How often a run is looked at (by the server) for approvals to decide, in ms; default 1000. */
  pollMs?: number;
}

/** What one case did and how it was graded. */
export interface CaseOutcome {
  name: string;
  id: string;
  pass: boolean;
  graders: GraderOutcome[];
  /** The first grader that failed. */
  failed?: GraderOutcome;
  stopReason: AgentResult['stopReason'];
  turns: number;
  tokens: number;
  costUsd: number;
  latencyMs: number;
  drift: number;
}

const REJECTED = 'This eval case gives no approval for this tool.';

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
    fleet: { tenant: settings.tenant },
    eval: {
      served: c.stubs ?? [],
      ...(c.liveReads ? { liveReads: true } : {}),
      ...(c.followUps?.length ? { followUps: c.followUps } : {}),
      caseName: c.name,
    },
  };
}

/** Decides the approvals the run waits for, as the case says, until its result is in. */
async function decideApprovals(
  agents: AgentClient,
  id: string,
  c: EvalCase,
  done: () => boolean,
  pollMs: number,
): Promise<void> {
  const decided = new Set<string>();
  const handle = agents.client.workflow.getHandle(id);
  while (!done()) {
    // The server answers whether the run waits (its search attribute); only then is a worker asked which calls.
    const waits = await handle.describe().then(
      (d) => d.typedSearchAttributes.get(SA.awaitingApproval) === true,
      () => false,
    );
    const state = waits ? await agents.state(id).catch(() => undefined) : undefined;
    for (const p of state?.pendingApprovals ?? []) {
      if (decided.has(p.toolCallId)) continue;
      decided.add(p.toolCallId);
      const given = c.approvals?.find((a) => a.tool === p.tool);
      await (
        given?.decision === 'approve'
          ? agents.approve(id, p.toolCallId, { argsHash: p.argsHash })
          : agents.reject(id, p.toolCallId, { argsHash: p.argsHash, reason: given?.reason ?? REJECTED })
      ).catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** The calls a run made, from its conversation, or from its events' previews when that cannot be read. */
async function callsOf(id: string, events: AgentEvent[], settings: CaseSettings): Promise<CaseRun['toolCalls']> {
  const messages = await settings.messages?.(id).catch(() => undefined);
  if (messages && messages.length > 0)
    return messages.flatMap((m) =>
      m.role === 'assistant' ? m.toolCalls.map(({ name, arguments: a }) => ({ name, arguments: a })) : [],
    );
  return events.flatMap((e) => {
    if (e.type !== 'tool_start') return [];
    let args: Record<string, unknown> = {};
    try {
      args = JSON.parse(e.args) as Record<string, unknown>;
    } catch {
      // A preview cut short: the call's arguments are unknown.
    }
    return [{ name: e.tool, arguments: args }];
  });
}

/** Runs one case and grades it. */
export async function runCase(agents: AgentClient, c: EvalCase, settings: CaseSettings): Promise<CaseOutcome> {
  const started = Date.now();
  const id = await agents.start(caseStart(c, settings));
  let finished = false;
  const deciding = decideApprovals(agents, id, c, () => finished, settings.pollMs ?? 1000);
  const result = await agents.result(id).finally(() => (finished = true));
  await deciding;
  return outcomeOf(c, id, await caseRunOf(agents, id, result, Date.now() - started, settings));
}

/** What the ended run `id` did, as graders read it. */
export async function caseRunOf(
  agents: AgentClient,
  id: string,
  result: AgentResult,
  latencyMs: number,
  settings: CaseSettings,
): Promise<CaseRun> {
  const view = await agents.state(id);
  const events = 'events' in view ? view.events : [];
  return {
    result,
    events,
    toolCalls: await callsOf(id, events, settings),
    approvalsRequested: events.flatMap((e) => (e.type === 'approval_required' ? [e.tool] : [])),
    latencyMs,
  };
}

/** How `run`, the run `id` of case `c`, is graded, and its figures. */
export async function outcomeOf(c: EvalCase, id: string, run: CaseRun): Promise<CaseOutcome> {
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
    drift: result.eval?.drift ?? 0,
  };
}
