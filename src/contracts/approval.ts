/**
 * Approvals as data: the rules that ask for them, the pending records a run keeps, and the
 * decision a caller sends (bound to the hash of the arguments it was shown) with its result.
 */

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

export interface ApprovalDecisionInput {
  toolCallId: string;
  /** The `argsHash` of the pending approval the approver was shown. */
  argsHash: string;
  decision: 'approve' | 'reject';
  reason?: string;
  /** Approve with these arguments instead (the tool's schema validates them at execution). */
  editedArgs?: Record<string, unknown>;
}

/** What `decideApproval` answers: the call and the state the decision put it in. */
export interface ApprovalDecisionResult {
  toolCallId: string;
  tool: string;
  state: ApprovalState;
}

export type ApprovalState = 'pending' | 'approved' | 'rejected';

export interface PendingApproval {
  toolCallId: string;
  tool: string;
  args: Record<string, unknown>;
  /** Hash of `args`: a decision must name it, so it binds to the exact arguments shown. */
  argsHash: string;
  turn: number;
  state: ApprovalState;
  reason?: string;
  /** Arguments the approver substituted (validated by the tool's schema at execution). */
  editedArgs?: Record<string, unknown>;
  /** `eval`: the run's eval record decided it (docs/evals.md). */
  decidedBy?: 'user' | 'timeout' | 'eval';
}
