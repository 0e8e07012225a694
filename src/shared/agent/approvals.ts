/**
 * Approval policy and decision validation. Pure: the workflow's update validator calls these.
 */
import { matchesToolPattern } from '../tool-catalog';
import type { ToolMode } from '../tool-catalog';
import type { PendingApproval } from './types';

/** A condition on one argument, addressed by a dotted path (`options.force`). */
export interface ArgPredicate {
  path: string;
  equals?: string | number | boolean | null;
  /** Regular expression the argument's string form must match. */
  matches?: string;
  exists?: boolean;
}

/** A tool (name or `prefix*`) needs approval, always or only when every predicate holds. */
export interface ApprovalRule {
  tool: string;
  when?: ArgPredicate[];
}

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

/** How one call is carried out this run, after approval rules are applied to the tool's own mode. */
export function classifyCall(
  mode: ToolMode,
  rules: readonly ApprovalRule[] | undefined,
  tool: string,
  args: Record<string, unknown>,
): ToolMode {
  if (mode === 'server' && ruleRequiresApproval(rules, tool, args)) return 'approval';
  return mode;
}

/** JSON with object keys sorted, so equal values give equal strings. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k])}`).join(',')}}`;
}

/** A 53-bit string hash (two multiplicative 32-bit lanes), hex. Deterministic in any JS runtime. */
export function hashString(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const n = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return n.toString(16).padStart(14, '0');
}

/** Hash of a call's arguments; an approval must quote it. */
export const argsHash = (args: Record<string, unknown>): string => hashString(stableStringify(args));

export interface ApprovalDecisionInput {
  toolCallId: string;
  /** The `argsHash` of the pending approval the approver was shown. */
  argsHash: string;
  decision: 'approve' | 'reject';
  reason?: string;
  /** Approve with these arguments instead (the tool's schema validates them at execution). */
  editedArgs?: Record<string, unknown>;
}

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
    return `the arguments of tool call ${input.toolCallId} differ from the ones approved (argsHash ${record.argsHash}, got ${String(input.argsHash)})`;
  }
  if (
    input.editedArgs !== undefined &&
    (input.editedArgs === null || typeof input.editedArgs !== 'object' || Array.isArray(input.editedArgs))
  ) {
    return 'edited arguments must be a JSON object';
  }
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

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}
