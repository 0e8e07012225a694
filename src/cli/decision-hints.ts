/**
 * What a run waits for a person to decide, and the commands that decide it: a tool call to
 * approve or reject, or the plan of a pev run started with `--confirm-plan`.
 */
import type { AgentStateView } from '../contracts/agent-run';
import type { PevProgress } from '../contracts/pev-progress';

/** The decisions a state view shows as pending. */
export interface WaitingOn {
  /** The run's own and those of its open children (`runId` names the child), all decided through the run. */
  approvals: (AgentStateView['pendingApprovals'][number] & { runId?: string })[];
  /** The cycle whose plan waits for a decision, when one does. */
  planCycle?: number;
}

export function waitingOn(s: AgentStateView): WaitingOn {
  const pev = (s as AgentStateView & { pev?: PevProgress }).pev;
  return {
    approvals: [...s.pendingApprovals, ...(s.childApprovals ?? [])],
    ...(pev?.phase === 'confirming' ? { planCycle: pev.cycle } : {}),
  };
}

/** The progress line's word for a run waiting on a person, if it is. */
export function waitingWords(w: WaitingOn): string | undefined {
  if (w.planCycle !== undefined) return 'awaiting plan approval';
  if (w.approvals.length === 0) return undefined;
  const calls = w.approvals.map((a) => `${a.tool} (${a.toolCallId})`).join(', ');
  return `awaiting approval of ${calls}`;
}

/** The commands that approve or reject one pending call, indented under what they decide. */
export function approvalCommands(prefix: string, id: string, toolCallId: string): string[] {
  return [
    `  approve: ${prefix} approve ${id} ${toolCallId}`,
    `  reject:  ${prefix} reject ${id} ${toolCallId} --reason TEXT`,
  ];
}

/** The commands that decide a waiting plan. */
export function planCommands(prefix: string, id: string): string[] {
  return [`  approve: ${prefix} plan ${id}`, `  reject:  ${prefix} plan ${id} --reject --feedback TEXT`];
}

/** The notice for a call that started waiting: the call with its arguments, and how to decide. */
export function approvalNotice(prefix: string, id: string, a: WaitingOn['approvals'][number]): string {
  return [
    `durable-agents: run ${id} waits for approval of ${a.tool} ${a.toolCallId}` +
      `${a.runId && a.runId !== id ? ` in ${a.runId}` : ''} with ${JSON.stringify(a.args)}`,
    ...approvalCommands(prefix, id, a.toolCallId),
  ].join('\n');
}

/** The notice for a plan that started waiting. */
export function planNotice(prefix: string, id: string, cycle: number): string {
  return [
    `durable-agents: run ${id} waits for a decision on the plan of cycle ${cycle}`,
    ...planCommands(prefix, id),
    `  read it: ${prefix} state ${id}`,
  ].join('\n');
}
