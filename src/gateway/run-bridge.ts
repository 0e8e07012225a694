/**
 * What every protocol does with runs, over the client library: start a published agent's run for a
 * caller, check that a run is the caller's, read what it waits for and answer it with the same
 * validated updates the CLI sends, read its end. No state of its own: a run id is every protocol's
 * task id, so any replica serves any request.
 */
import crypto from 'node:crypto';
import { AgentClientError, type AgentClient } from '../client';
import { describeOrExplain } from '../client/run-reads';
import type { AgentResult, AgentStateView } from '../contracts/agent-run';
import { AGENT_SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import type { WatchItem } from '../contracts/watch-topics';
import { ASK_USER, questionOf } from '../policy/ask-user';
import type { PublishedAgent, PublishedAgents } from './published-agents';
import { startOptionsFor, type Caller, type RunDefaults, type RunRequest } from './run-start';
import type { RunFeed } from './token-source';

/** Why a gateway refuses a request; each protocol answers with its own error for the kind. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  constructor(
    readonly kind: 'bad_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'rate_limited' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

/** The HTTP status of each kind of refusal, for the protocols that answer refusals by status. */
export const HTTP_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
} as const satisfies Record<GatewayError['kind'], number>;

/** Something a run waits for from the caller: an approval of a tool call, or an answer to its question. */
export type RunInput =
  | { kind: 'approval'; toolCallId: string; tool: string; args: Record<string, unknown>; argsHash: string }
  | { kind: 'question'; toolCallId: string; question: string };

/** The caller's answer to one {@link RunInput}. */
export type InputAnswer =
  { toolCallId: string; approve: boolean; reason?: string; argsHash?: string } | { toolCallId: string; answer: string };

/** How a run that has ended ended, as every protocol's task states tell it. */
export function runEnd(r: AgentResult): 'cancelled' | 'failed' | 'completed' {
  if (r.stopReason === 'cancelled') return 'cancelled';
  return r.status === 'failed' || r.stopReason === 'error' ? 'failed' : 'completed';
}

/** Between a run's agent name and the rest of its id: no agent name holds it. */
const ID_SEPARATOR = ':';

export class GatewayRuns {
  constructor(
    readonly agents: AgentClient,
    readonly published: PublishedAgents,
    readonly feed: RunFeed,
    private readonly defaults: RunDefaults = {},
  ) {}

  /** A published agent by name, or a `not_found` refusal naming the ones there are. */
  agent(name: string): PublishedAgent {
    const agent = Object.hasOwn(this.published, name) ? this.published[name] : undefined;
    if (!agent)
      throw new GatewayError('not_found', `no agent "${name}"; published: ${Object.keys(this.published).join(', ')}`);
    return agent;
  }

  /** The id of a run of `agent`: the agent's name, then `suffix` (a protocol's own run id) or fresh random digits. */
  runId(agent: string, suffix: string = crypto.randomUUID()): string {
    return `${agent}${ID_SEPARATOR}${suffix}`;
  }

  /** The published agent a run the gateway started belongs to. */
  agentOf(runId: string): string | undefined {
    const name = runId.slice(0, Math.max(0, runId.indexOf(ID_SEPARATOR)));
    return Object.hasOwn(this.published, name) ? name : undefined;
  }

  /** Starts a run of a published agent; returns its id. Bad options are a `bad_request` naming them. */
  async start(name: string, request: RunRequest): Promise<string> {
    try {
      return await this.agents.start(
        startOptionsFor(name, this.agent(name), { ...request, id: request.id ?? this.runId(name) }, this.defaults),
      );
    } catch (err) {
      if (err instanceof AgentClientError && /already exists/.test(err.message))
        throw new GatewayError('conflict', err.message);
      if (err instanceof AgentClientError) throw new GatewayError('bad_request', err.message);
      throw err;
    }
  }

  /**
   * Checks that a run is one the gateway started and the caller's tenant owns; returns whether it is
   * still running. Another tenant's run reads as unknown, so ids do not leak.
   */
  async own(
    runId: string,
    caller: Caller,
    may?: (agent: string) => boolean,
  ): Promise<{ running: boolean; agent: string }> {
    const agent = this.agentOf(runId);
    const unknown = new GatewayError('not_found', `no task "${runId}"`);
    if (!agent) throw unknown;
    if (may && !may(agent)) throw new GatewayError('forbidden', `this key may not use agent "${agent}"`);
    const described = await describeOrExplain(this.agents.client, runId).catch(() => undefined);
    if (!described) throw unknown;
    const tenant = described.typedSearchAttributes.get(AGENT_SEARCH_ATTRIBUTES.tenant);
    if ((tenant ?? undefined) !== caller.tenant) throw unknown;
    return { running: described.status.name === 'RUNNING', agent };
  }

  /** What the run (or one of its open children) waits for from the caller, oldest first. */
  async inputs(runId: string, state?: AgentStateView): Promise<RunInput[]> {
    const view = state ?? (await this.agents.state(runId));
    const approvals: RunInput[] = [...view.pendingApprovals, ...(view.childApprovals ?? [])].map((a) => ({
      kind: 'approval',
      toolCallId: a.toolCallId,
      tool: a.tool,
      args: a.args,
      argsHash: a.argsHash,
    }));
    const questions: RunInput[] = [...view.clientToolRequests, ...(view.childClientToolRequests ?? [])]
      .filter((c) => c.tool === ASK_USER)
      .map((c) => ({ kind: 'question', toolCallId: c.toolCallId, question: questionOf(c.args) }));
    return [...approvals, ...questions];
  }

  /** What the run waits for from the caller after `item`: nothing unless it asks for an approval or an answer. */
  async inputsAfter(runId: string, item: WatchItem): Promise<RunInput[]> {
    const e = item.topic === 'events' ? item.event : undefined;
    const asks = e?.type === 'approval_required' || (e?.type === 'client_tool_request' && e.tool === ASK_USER);
    return asks ? this.inputs(runId) : [];
  }

  /** Sends one answer as the CLI would (`approve`, `reject`, `answer`); a refusal is a `bad_request` naming why. */
  async answer(runId: string, answer: InputAnswer): Promise<void> {
    try {
      if ('answer' in answer) await this.agents.answer(runId, answer.answer, answer.toolCallId);
      else if (answer.approve)
        await this.agents.approve(runId, answer.toolCallId, answer.argsHash ? { argsHash: answer.argsHash } : {});
      else
        await this.agents.reject(runId, answer.toolCallId, {
          ...(answer.reason ? { reason: answer.reason } : {}),
          ...(answer.argsHash ? { argsHash: answer.argsHash } : {}),
        });
    } catch (err) {
      if (err instanceof AgentClientError) throw new GatewayError('bad_request', err.message);
      throw err;
    }
  }

  /** Cancels the run: it ends like a stop, with its result (stop reason `cancelled`). */
  async cancel(runId: string): Promise<void> {
    try {
      await this.agents.cancel(runId);
    } catch (err) {
      if (err instanceof AgentClientError) throw new GatewayError('conflict', err.message);
      throw err;
    }
  }

  /** The first run of the conversation a run goes on from (each run's memo names the one it continued). */
  async conversationRoot(runId: string): Promise<string> {
    let at = runId;
    for (let i = 0; i < 100; i++) {
      const from = (await this.agents.client.workflow.getHandle(at).describe()).memo?.continuedFrom;
      if (typeof from !== 'string') return at;
      at = from;
    }
    return at;
  }
}
