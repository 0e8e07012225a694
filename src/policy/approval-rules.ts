/**
 * Approval policy: the one decision of how a tool call is carried out (run, wait for a person,
 * wait for the client), the argument hash a decision must quote, and decision validation. Pure:
 * the workflow's update validator calls these.
 */
import type { ApprovalDecisionInput, ApprovalRule, ArgPredicate, PendingApproval } from '../contracts/approval';
import { canonicalJson } from '../common/canonical-json';
import { formatDuration } from '../common/duration';
import { hashString } from '../common/hash';
import { isPlainObject } from '../common/type-helpers';
import { matchesToolPattern } from './tool-selection';
import type { ToolMode } from '../contracts/tool-catalog';
import type { AgentEvent } from '../contracts/agent-events';

function argAt(args: Record<string, unknown>, path: string): unknown {
  let value: unknown = args;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function predicateHolds(args: Record<string, unknown>, p: ArgPredicate): boolean {
  const value = argAt(args, p.path);
  if (p.exists !== undefined && (value !== undefined) !== p.exists) return false;
  if (p.equals !== undefined && value !== p.equals) return false;
  if (p.matches !== undefined) {
    if (value === undefined) return false;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (!new RegExp(p.matches).test(text)) return false;
  }
  return true;
}

/** True when a rule asks for approval of this call. */
export function ruleRequiresApproval(
  rules: readonly ApprovalRule[] | undefined,
  tool: string,
  args: Record<string, unknown>,
): boolean {
  return (rules ?? []).some(
    (r) => matchesToolPattern(tool, [r.tool]) && (r.when ?? []).every((p) => predicateHolds(args, p)),
  );
}

/** What a run says about approvals: its `approve` list (tool names or patterns) and its rules. */
export interface RunApprovals {
  approve?: readonly string[];
  rules?: readonly ApprovalRule[];
}

/**
 * The one decision of how a call is carried out this run: the tool's own mode, raised from
 * `server` to `approval` when the run's `approve` list names the tool or one of its rules matches
 * the call's arguments. Client tools stay client tools.
 */
export function callMode(
  tool: { name: string; mode: ToolMode },
  args: Record<string, unknown>,
  run: RunApprovals,
): ToolMode {
  if (tool.mode !== 'server' && tool.mode !== 'agent') return tool.mode;
  const approved = matchesToolPattern(tool.name, run.approve) || ruleRequiresApproval(run.rules, tool.name, args);
  return approved ? 'approval' : tool.mode;
}

/** Hash of a call's arguments; an approval must quote it. */
export const argsHash = (args: Record<string, unknown>): string => hashString(canonicalJson(args));

/**
 * Why a decision must be refused, or undefined when it may be applied. Used by the update validator,
 * so a refused decision never enters history.
 */
export function decisionRefusal(
  approvals: readonly PendingApproval[],
  input: ApprovalDecisionInput,
): string | undefined {
  if (!input || typeof input.toolCallId !== 'string') return 'a decision needs a toolCallId';
  if (input.decision !== 'approve' && input.decision !== 'reject')
    return `decision must be "approve" or "reject", got ${JSON.stringify(input.decision)}`;
  const record = approvals.find((a) => a.toolCallId === input.toolCallId);
  if (!record) return `no approval is pending for tool call ${input.toolCallId}`;
  if (record.state !== 'pending') return `tool call ${input.toolCallId} was already ${record.state}`;
  if (input.argsHash !== record.argsHash) {
    return (
      `the arguments of tool call ${input.toolCallId} differ from the ones approved (argsHash ` +
      `${record.argsHash}, got ${String(input.argsHash)})`
    );
  }
  if (input.editedArgs !== undefined && !isPlainObject(input.editedArgs))
    return 'edited arguments must be a JSON object';
  if (input.editedArgs !== undefined && input.decision !== 'approve')
    return 'edited arguments only go with an approval';
  return undefined;
}

/** Applies a validated decision to its record. */
export function applyDecision(approvals: PendingApproval[], input: ApprovalDecisionInput): PendingApproval {
  const record = approvals.find((a) => a.toolCallId === input.toolCallId);
  if (!record) throw new Error(`no approval is pending for tool call ${input.toolCallId}`);
  record.state = input.decision === 'approve' ? 'approved' : 'rejected';
  record.decidedBy = 'user';
  if (input.reason !== undefined) record.reason = input.reason;
  if (input.editedArgs !== undefined) record.editedArgs = input.editedArgs;
  return record;
}

/** The `approval_decided` event of a decided approval: decided `by` a person, the timeout or the run's eval record. */
export const approvalDecided = (
  a: PendingApproval,
  by: NonNullable<PendingApproval['decidedBy']>,
): Omit<Extract<AgentEvent, { type: 'approval_decided' }>, 'at' | 'turn'> => ({
  type: 'approval_decided',
  toolCallId: a.toolCallId,
  tool: a.tool,
  decision: a.state === 'approved' ? 'approved' : 'rejected',
  by,
  edited: a.editedArgs !== undefined,
  ...(a.reason ? { reason: a.reason } : {}),
});

/** Resolves every still-pending approval as a timed-out rejection. Returns the ones it resolved. */
export function expireApprovals(approvals: PendingApproval[], timeoutMs: number): PendingApproval[] {
  const expired = approvals.filter((a) => a.state === 'pending');
  for (const a of expired) {
    a.state = 'rejected';
    a.decidedBy = 'timeout';
    a.reason = `no decision within ${formatDuration(timeoutMs)}`;
  }
  return expired;
}
