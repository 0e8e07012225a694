/**
 * The decisions a run waits for, sent as updates: approvals, plan decisions and client tool
 * results. An update needs a worker to take it, so each is refused at once when none polls.
 */
import { decideApprovalUpdate, decidePlanUpdate, submitToolResultUpdate } from '../contracts/agent-workflows';
import type { ApprovalDecisionInput, ApprovalDecisionResult } from '../contracts/approval';
import type { AgentStateView } from '../contracts/agent-run';
import type { WaitingCall } from '../contracts/sub-agents';
import type { KindWait } from '../kinds';
import { OPEN_STATUSES } from '../contracts/run-status';
import { AgentClientError, alreadyEnded } from './client-errors';
import type { RunAccess } from './run-access';

const ARGS_WAY = 'approve with smaller arguments, or reject the call and steer the run instead';
const RESULT_WAY = 'store the result where a tool of the run can read it and send a short reference instead';

/** A call waiting for a person in a run or one of its open children, with the run that holds it. */
export type WaitingApproval = WaitingCall & { argsHash: string };

/** The run's own pending approvals and those its open children reported, each with the run that holds it. */
export const approvalsIn = (state: AgentStateView, id: string): WaitingApproval[] => [
  ...state.pendingApprovals.map((a) => ({ runId: id, ...a })),
  ...(state.childApprovals ?? []),
];

/** The run's own waiting client tool calls and those its open children reported. */
export const clientCallsIn = (state: AgentStateView, id: string): WaitingCall[] => [
  ...state.clientToolRequests.map((c) => ({ runId: id, ...c })),
  ...(state.childClientToolRequests ?? []),
];

/** The decisions of {@link AgentClient} (approvals, plans, client tool results), over its {@link RunAccess}. */
export class RunDecisions {
  constructor(protected readonly access: RunAccess) {}

  /**
   * The run's pending approvals and those of its open child runs (sub-agents, at any depth), each
   * with the id of the run that waits for it.
   */
  async pendingApprovals(id: string): Promise<WaitingApproval[]> {
    return approvalsIn(await this.access.state(id), id);
  }

  /**
   * The waiting call `toolCallId` in the run `id` or its family: the run's own, one its children
   * reported, else one an open child holds (asked directly: a child's report reaches its parent a
   * moment after it starts to wait). Also the run's state, for a refusal that names what waits.
   */
  async findWaiting<T extends WaitingCall>(
    id: string,
    toolCallId: string,
    of: (state: AgentStateView, id: string) => T[],
  ): Promise<{ state: AgentStateView; found?: T }> {
    const state = await this.access.state(id);
    const found = of(state, id).find((c) => c.toolCallId === toolCallId);
    if (found) return { state, found };
    for (const child of (state.children ?? []).filter((c) => c.endedAt === undefined)) {
      const held = await this.findWaiting(child.id, toolCallId, of).catch(() => undefined);
      if (held?.found) return { state, found: held.found };
    }
    return { state };
  }

  /**
   * Approves a tool call, optionally with edited arguments. The decision quotes the hash of the
   * arguments it was shown (`argsHash`, read from the state when not given), so it cannot approve
   * different arguments than the approver saw.
   */
  async approve(
    id: string,
    toolCallId: string,
    options: { args?: Record<string, unknown>; argsHash?: string } = {},
  ): Promise<ApprovalDecisionResult> {
    const decision = {
      toolCallId,
      decision: 'approve' as const,
      ...(options.args ? { editedArgs: options.args } : {}),
    };
    await this.access.payloadLimit.check(decision, 'the approval with its edited arguments', ARGS_WAY);
    return this.decide(id, decision, 'an approval', options.argsHash);
  }

  /** Rejects a tool call, with a reason the run sees; `argsHash` as for {@link approve}. */
  async reject(
    id: string,
    toolCallId: string,
    options: { reason?: string; argsHash?: string } = {},
  ): Promise<ApprovalDecisionResult> {
    const decision = { toolCallId, decision: 'reject' as const, ...(options.reason ? { reason: options.reason } : {}) };
    await this.access.payloadLimit.check(decision, 'the reason', 'give a shorter reason');
    return this.decide(id, decision, 'a rejection', options.argsHash);
  }

  /** Sends a decision on a call's approval to the run that holds it, quoting the hash of the arguments it shows. */
  private async decide(
    id: string,
    decision: Omit<ApprovalDecisionInput, 'argsHash'>,
    what: string,
    quoted?: string,
  ): Promise<ApprovalDecisionResult> {
    await this.access.requireWorker(id, what);
    // The run that holds the call's approval (the run's or an open child's), bound to the arguments it shows. A
    // decision that quotes its hash goes to the run itself when no open run holds it, so the run says why it refuses
    // it (decided already, unknown call).
    const pending = this.findWaiting(id, decision.toolCallId, approvalsIn).then(({ state, found }) => {
      if (!found) throw noPendingApproval(state, id, decision.toolCallId);
      return found;
    });
    const found = quoted === undefined ? await pending : await pending.catch(() => ({ runId: id, argsHash: quoted }));
    const argsHash = quoted ?? found.argsHash;
    return this.access.call(found.runId, (h) =>
      h.executeUpdate(decideApprovalUpdate, { args: [{ ...decision, argsHash }] }),
    );
  }

  /**
   * Approves or rejects the plan a run waits on (a kind that has its plans confirmed, asked to with its options);
   * rejection feedback goes to the one that plans.
   */
  async decidePlan(id: string, approve: boolean, feedback?: string): Promise<{ approved: boolean; cycle: number }> {
    const input = { approve, ...(feedback ? { feedback } : {}) };
    await this.access.payloadLimit.check(input, 'the feedback', 'give shorter feedback');
    await this.access.requireWorker(id, 'a plan decision');
    return this.access.call(id, (h) => h.executeUpdate(decidePlanUpdate, { args: [input] }));
  }

  /**
   * The result of a client tool call the run waits for, or one of its open children (a sub-agent
   * that uses the run's client tools): it reaches the run that waits.
   */
  async submitToolResult(id: string, toolCallId: string, content: string, isError = false): Promise<void> {
    const input = { toolCallId, content, isError };
    await this.access.payloadLimit.check(input, 'the tool result', RESULT_WAY);
    await this.access.requireWorker(id, 'a tool result');
    // A call no run of the family holds goes to the run itself, which says why it refuses it.
    const { found } = await this.findWaiting(id, toolCallId, clientCallsIn).catch(() => ({ found: undefined }));
    await this.access.call(found?.runId ?? id, (h) => h.executeUpdate(submitToolResultUpdate, { args: [input] }));
  }
}

/**
 * The refusal of a decision on a call the run does not wait for: that the run has ended, or the calls
 * that wait, or what else the run waits for (`wait`, from its kind) and the commands that decide it.
 */
export function noPendingApproval(
  state: AgentStateView,
  runId: string,
  toolCallId: string,
  wait?: KindWait,
): AgentClientError {
  if (!OPEN_STATUSES.includes(state.status))
    return alreadyEnded(runId, 'closedAs' in state ? String(state.closedAs) : state.status);
  const ids = approvalsIn(state, runId).map((a) => a.toolCallId);
  const others = ids.length ? ` (pending: ${ids.join(', ')})` : '';
  const decide = wait
    ? `: it waits for ${wait.what}; ` +
      Object.entries(wait.commands(runId))
        .map(([what, args]) => `${what} it with \`durable-agents ${args}\``)
        .join(' or ')
    : '';
  return new AgentClientError(`run "${runId}" has no pending approval for tool call "${toolCallId}"${others}${decide}`);
}
