/**
 * The decisions a run waits for, sent as updates: approvals, plan decisions and client tool
 * results. An update needs a worker to take it, so each is refused at once when none polls.
 */
import { decideApprovalUpdate, submitToolResultUpdate } from '../contracts/agent-workflows';
import { type ApprovalDecisionResult } from '../contracts/approval';
import { decidePlanUpdate } from '../contracts/pev-run';
import type { AgentStateView } from '../contracts/agent-run';
import type { PevProgress } from '../contracts/pev-progress';
import { AgentClientError } from './client-errors';
import { RunAccess } from './run-access';

const ARGS_WAY = 'approve with smaller arguments, or reject the call and steer the run instead';
const RESULT_WAY = 'store the result where a tool of the run can read it and send a short reference instead';

export class RunDecisions extends RunAccess {
  /** The pending approval of a call, for binding a decision to the arguments it shows. */
  private async pending(id: string, toolCallId: string): Promise<{ argsHash: string; args: Record<string, unknown> }> {
    const state = await this.state(id);
    const found = state.pendingApprovals.find((a) => a.toolCallId === toolCallId);
    if (!found) throw noPendingApproval(state, id, toolCallId);
    return found;
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
    await this.payloadLimit.check(decision, 'the approval with its edited arguments', ARGS_WAY);
    await this.requireWorker(id, 'an approval');
    const argsHash = options.argsHash ?? (await this.pending(id, toolCallId)).argsHash;
    return this.call(id, (h) => h.executeUpdate(decideApprovalUpdate, { args: [{ ...decision, argsHash }] }));
  }

  async reject(
    id: string,
    toolCallId: string,
    options: { reason?: string; argsHash?: string } = {},
  ): Promise<ApprovalDecisionResult> {
    const decision = { toolCallId, decision: 'reject' as const, ...(options.reason ? { reason: options.reason } : {}) };
    await this.payloadLimit.check(decision, 'the reason', 'give a shorter reason');
    await this.requireWorker(id, 'a rejection');
    const argsHash = options.argsHash ?? (await this.pending(id, toolCallId)).argsHash;
    return this.call(id, (h) => h.executeUpdate(decideApprovalUpdate, { args: [{ ...decision, argsHash }] }));
  }

  /**
   * Approves or rejects the plan a `pev` run with `confirmPlan` is waiting on; rejection feedback goes to the planner.
   */
  async decidePlan(id: string, approve: boolean, feedback?: string): Promise<{ approved: boolean; cycle: number }> {
    const input = { approve, ...(feedback ? { feedback } : {}) };
    await this.payloadLimit.check(input, 'the feedback', 'give shorter feedback');
    await this.requireWorker(id, 'a plan decision');
    return this.call(id, (h) => h.executeUpdate(decidePlanUpdate, { args: [input] }));
  }

  /** The result of a client tool call the run waits for. */
  async submitToolResult(id: string, toolCallId: string, content: string, isError = false): Promise<void> {
    const input = { toolCallId, content, isError };
    await this.payloadLimit.check(input, 'the tool result', RESULT_WAY);
    await this.requireWorker(id, 'a tool result');
    await this.call(id, (h) => h.executeUpdate(submitToolResultUpdate, { args: [input] }));
  }
}

/**
 * The refusal of a decision on a call the run does not wait for: it names the calls that wait, or
 * the plan when that is what waits (a pev run started with `confirmPlan`).
 */
export function noPendingApproval(state: AgentStateView, runId: string, toolCallId: string): AgentClientError {
  const ids = state.pendingApprovals.map((a) => a.toolCallId);
  const others = ids.length ? ` (pending: ${ids.join(', ')})` : '';
  const pev = (state as AgentStateView & { pev?: PevProgress }).pev;
  const plan =
    pev?.phase === 'confirming'
      ? `: it waits for a decision on its plan; approve it with \`durable-agents plan ${runId}\` or reject it ` +
        `with \`durable-agents plan ${runId} --reject --feedback TEXT\``
      : '';
  return new AgentClientError(`run "${runId}" has no pending approval for tool call "${toolCallId}"${others}${plan}`);
}
