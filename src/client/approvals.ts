/**
 * The approvals inbox: every tool call waiting for a person, across runs, and every other decision a
 * run's kind waits for (a pev plan). Visibility names the runs that wait (`DurableAgentAwaitingApproval
 * = true`); each run's `state` query gives the calls, their arguments and the hash a decision must quote.
 */
import { errorText } from '../common/error-text';
import type { AgentStateView } from '../contracts/agent-run';
import { argsHash } from '../policy/approval-rules';
import type { AgentClient } from './agent-client';
import { NoWorkerError, noWorkerFor } from './client-errors';
import { approvalsIn, noPendingApproval } from './run-decisions';

/** One tool call waiting for a decision. */
export interface PendingApprovalEntry {
  /** The run's id. */
  runId: string;
  toolCallId: string;
  tool: string;
  args: Record<string, unknown>;
  /** What `approve --args-hash` / `reject --args-hash` quote to bind a decision to these arguments. */
  argsHash: string;
  /** When the run asked (ISO), if its kept events still say. */
  waitingSince?: string;
  kind?: string;
  model?: string;
  /** The run's task, first line. */
  task?: string;
}

/** A decision a run's kind waits for besides tool calls (a pev plan), with the commands that make it. */
export interface KindWaitEntry {
  runId: string;
  /** What waits, as the end of "waits for …": `a decision on the plan of cycle 1`. */
  waitsFor: string;
  /** The commands that decide it, after the program's name, by what each does. */
  commands: Record<string, string>;
  kind?: string;
  model?: string;
  /** The run's task, first line. */
  task?: string;
}

export interface ApprovalsInbox {
  approvals: PendingApprovalEntry[];
  /** The other decisions the waiting runs' kinds wait for, by run id. */
  waits: KindWaitEntry[];
  /** Runs visibility lists as waiting whose state could not be read (no worker answered), with why. */
  unread: { runId: string; reason: string }[];
}

export interface InboxOptions {
  /** At most this many waiting runs are read. Default 200. */
  limit?: number;
  /** Only the runs of this tenant. */
  tenant?: string;
}

/** State queries in flight at once. */
const CONCURRENT_QUERIES = 8;

/** The pending approvals of one state view, oldest first. */
export function pendingApprovalsOf(state: AgentStateView, runId: string): PendingApprovalEntry[] {
  const askedAt = new Map<string, number>();
  for (const e of state.events) if (e.type === 'approval_required') askedAt.set(e.toolCallId, e.at);
  return state.pendingApprovals.map((a) => {
    const at = askedAt.get(a.toolCallId);
    return {
      runId,
      toolCallId: a.toolCallId,
      tool: a.tool,
      args: a.args,
      argsHash: a.argsHash,
      ...(at !== undefined ? { waitingSince: new Date(at).toISOString() } : {}),
      kind: state.kind,
      model: state.model,
    };
  });
}

/** Every pending approval of the runs that wait for one, oldest first, and the other decisions they wait for. */
export async function approvalsInbox(agents: AgentClient, options: InboxOptions = {}): Promise<ApprovalsInbox> {
  const listed = await agents.list({ awaitingApproval: true, limit: options.limit ?? 200, tenant: options.tenant });
  const runs = listed.filter((r) => r.status === 'RUNNING');
  const approvals: PendingApprovalEntry[] = [];
  const waits: KindWaitEntry[] = [];
  const unread: ApprovalsInbox['unread'] = [];
  for (let i = 0; i < runs.length; i += CONCURRENT_QUERIES) {
    await Promise.all(
      runs.slice(i, i + CONCURRENT_QUERIES).map(async (run) => {
        try {
          const state = await agents.state(run.id);
          const task = run.task ? { task: run.task } : {};
          approvals.push(...pendingApprovalsOf(state, run.id).map((a) => ({ ...a, ...task })));
          const wait = agents.kinds.waiting(state);
          if (wait)
            waits.push({
              runId: run.id,
              waitsFor: wait.what,
              commands: wait.commands(run.id),
              kind: state.kind,
              model: state.model,
              ...task,
            });
        } catch (err) {
          unread.push({ runId: run.id, reason: errorText(err) });
        }
      }),
    );
  }
  approvals.sort(
    (a, b) => (a.waitingSince ?? '').localeCompare(b.waitingSince ?? '') || a.runId.localeCompare(b.runId),
  );
  waits.sort((a, b) => a.runId.localeCompare(b.runId));
  return { approvals, waits, unread };
}

/**
 * The pending approval of one call as the run reports it now, with the hash of exactly the arguments
 * returned: quote it in a decision so it binds to the arguments shown.
 */
export async function pendingApproval(
  agents: AgentClient,
  runId: string,
  toolCallId: string,
  what = 'a decision',
): Promise<PendingApprovalEntry> {
  const { state, found } = await agents.findWaiting(runId, toolCallId, approvalsIn).catch((err: unknown) => {
    if (!(err instanceof NoWorkerError)) throw err;
    throw noWorkerFor(err.taskQueue, `take ${what} for run "${runId}"`);
  });
  if (!found) throw noPendingApproval(state, runId, toolCallId, agents.kinds.waiting(state));
  // The run's own approval carries when it was asked; a child's names the child that waits.
  const own = found.runId === runId ? pendingApprovalsOf(state, runId).find((a) => a.toolCallId === toolCallId) : {};
  return { ...own, ...found, argsHash: argsHash(found.args) };
}
