/**
 * What a run waits for a person to decide, and the commands that decide it: a tool call to
 * approve or reject, what else its kind waits for (a plan waiting to be confirmed), or a follow-up
 * to its answer (a run started with an idle wait).
 */
import type { AgentStateView } from '../contracts/agent-run';
import type { KindRegistry, KindWait } from '../kinds';

/** The decisions a state view shows as pending. */
export interface WaitingOn {
  /** The run's own and those of its open children (`runId` names the child), all decided through the run. */
  approvals: (AgentStateView['pendingApprovals'][number] & { runId?: string })[];
  /** What else the run waits for, as its kind says. */
  wait?: KindWait;
}

/** A run that answered and waits for a follow-up (`--idle-wait`): one wait per answer. */
function followUpWait(s: AgentStateView): KindWait | undefined {
  if (s.status !== 'awaiting_follow_up') return undefined;
  return {
    what: `a follow-up to its answer of turn ${s.turn}`,
    words: 'awaiting a follow-up',
    commands: (id) => ({ 'follow up': `follow-up ${id} TEXT`, 'end it': `stop ${id}` }),
  };
}

export function waitingOn(s: AgentStateView, kinds: KindRegistry): WaitingOn {
  const wait = kinds.waiting(s) ?? followUpWait(s);
  return { approvals: [...s.pendingApprovals, ...(s.childApprovals ?? [])], ...(wait ? { wait } : {}) };
}

/** The progress line's word for a run waiting on a person, if it is. */
export function waitingWords(w: WaitingOn): string | undefined {
  if (w.wait) return w.wait.words;
  if (w.approvals.length === 0) return undefined;
  const calls = w.approvals.map((a) => `${a.tool} (${a.toolCallId})`).join(', ');
  return `awaiting approval of ${calls}`;
}

/** Commands by what they do, one indented line each, their labels aligned. */
function commandLines(prefix: string, commands: Record<string, string>): string[] {
  const width = Math.max(...Object.keys(commands).map((what) => what.length)) + 1;
  return Object.entries(commands).map(([what, args]) => `  ${`${what}:`.padEnd(width)} ${prefix} ${args}`);
}

/** The commands that approve or reject one pending call, indented under what they decide. */
export function approvalCommands(prefix: string, id: string, toolCallId: string): string[] {
  return commandLines(prefix, {
    approve: `approve ${id} ${toolCallId}`,
    reject: `reject ${id} ${toolCallId} --reason TEXT`,
  });
}

/** The commands that decide what a kind's run waits for. */
export function waitCommands(prefix: string, id: string, wait: KindWait): string[] {
  return commandLines(prefix, wait.commands(id));
}

/** The notice for a call that started waiting: the call with its arguments, and how to decide. */
export function approvalNotice(prefix: string, id: string, a: WaitingOn['approvals'][number]): string {
  return [
    `run ${id} waits for approval of ${a.tool} ${a.toolCallId}` +
      `${a.runId && a.runId !== id ? ` in ${a.runId}` : ''} with ${JSON.stringify(a.args)}`,
    ...approvalCommands(prefix, id, a.toolCallId),
  ].join('\n');
}

/** The notice for a kind's wait that started. */
export function waitNotice(prefix: string, id: string, wait: KindWait): string {
  return [
    `run ${id} waits for ${wait.what}`,
    ...waitCommands(prefix, id, wait),
    `  read it: ${prefix} state ${id}`,
  ].join('\n');
}
