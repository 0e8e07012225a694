/** Listing agent runs: a visibility query built on the project's search attributes. */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { kindRegistry, type KindRegistry } from '../kinds';
import { OPEN_STATUSES, cutOff, shownRunStatus, type AgentStatus } from '../contracts/run-status';
import { AGENT_SEARCH_ATTRIBUTES as SA, SCHEDULED_BY } from '../contracts/search-attributes';
import { AgentClientError } from './client-errors';

export interface AgentListEntry {
  id: string;
  runId: string;
  kind?: string;
  /** Temporal's status of the execution (`RUNNING`, `COMPLETED`, `FAILED`, …). */
  status: string;
  /** The run's status: a run cut off by an operator, a hook, a limit or a budget is `stopped`. */
  agentStatus?: string;
  /** How the run ended (`DurableAgentStopReason`), once it has. */
  stopReason?: string;
  phase?: string;
  model?: string;
  costUsd?: number;
  /** The task's first line. */
  task?: string;
  /** The schedule that started the run, if one did. */
  schedule?: string;
  startTime: string;
}

/** Which runs to list; every filter given must hold. */
export interface ListFilters {
  /** At most this many, newest first. Default 50. */
  limit?: number;
  /** `stopped` takes in every run cut off ({@link cutOff}), `completed` only the runs that finished their work. */
  status?: AgentStatus;
  /** Only the runs that ended this way (a stop reason of every run, or of a kind's: `KindRegistry.stopReasons`). */
  stopReason?: string;
  awaitingApproval?: boolean;
  /** Model spec of the run's current model. */
  model?: string;
  kind?: string;
  /** Runs the schedule of this name started. */
  schedule?: string;
  /** Only the child runs (sub-agents) of this run. */
  parent?: string;
  /** Only the runs of this tenant (`DurableAgentTenant`). */
  tenant?: string;
}

export const AGENT_STATUSES: readonly AgentStatus[] = [...OPEN_STATUSES, 'completed', 'stopped', 'failed'];

const RUNNING_EXECUTION = `ExecutionStatus = 'Running'`;

/**
 * The status to show for a run: a closed execution whose last agent status is an open one ended
 * without the run saying so (terminated, timed out), so its execution status tells how it ended;
 * a run cut off by a limit or a budget, whose result says completed, is stopped.
 */
function shownStatus(executionStatus: string, agentStatus: string | undefined, stopReason?: string): string {
  const closed = executionStatus !== 'RUNNING';
  if (agentStatus === undefined || (closed && (OPEN_STATUSES as readonly string[]).includes(agentStatus)))
    return executionStatus.toLowerCase();
  return shownRunStatus(agentStatus, stopReason);
}

/** The query part of a status: a run's stop reason (one of `stopReasons`) decides between completed and stopped. */
function statusQuery(status: AgentStatus, stopReasons: readonly string[]): string {
  const quotedReasons = stopReasons
    .filter(cutOff)
    .map((r) => `'${r}'`)
    .join(', ');
  if (status === 'stopped') return `(${SA.status.name} = 'stopped' OR ${SA.stopReason.name} IN (${quotedReasons}))`;
  if (status === 'completed')
    return `${SA.status.name} = 'completed' AND (${SA.stopReason.name} IS NULL OR ${SA.stopReason.name} = 'completed')`;
  return `${SA.status.name} = '${status}'`;
}

/** A value fit to quote in a visibility query, or a one-line refusal. */
function quoted(value: string, what: string): string {
  if (!/^[\w./:@+-]+$/.test(value))
    throw new AgentClientError(`${what} "${value}" may only hold letters, digits and . / : @ + - _`);
  return `'${value}'`;
}

/**
 * The visibility query of {@link ListFilters} (also usable with `temporal workflow list --query`): runs of the
 * `kinds` (default: the built-in ones).
 */
export function listQuery(filters: ListFilters = {}, kinds: KindRegistry = kindRegistry()): string {
  const types = kinds.workflowTypes.map((t) => `'${t}'`).join(', ');
  const parts = [`WorkflowType IN (${types})`];
  if (filters.status !== undefined) {
    if (!AGENT_STATUSES.includes(filters.status))
      throw new AgentClientError(`unknown status "${filters.status}"; use one of: ${AGENT_STATUSES.join(', ')}`);
    parts.push(statusQuery(filters.status, kinds.stopReasons));
  }
  if (filters.stopReason !== undefined) {
    if (!kinds.stopReasons.includes(filters.stopReason))
      throw new AgentClientError(
        `unknown stop reason "${filters.stopReason}"; use one of: ${kinds.stopReasons.join(', ')}`,
      );
    parts.push(`${SA.stopReason.name} = '${filters.stopReason}'`);
  }
  if (filters.awaitingApproval !== undefined) parts.push(`${SA.awaitingApproval.name} = ${filters.awaitingApproval}`);
  // A closed run keeps the open status it last set (terminated, timed out): only a running one is in it.
  if (filters.awaitingApproval === true || (filters.status !== undefined && OPEN_STATUSES.includes(filters.status)))
    parts.push(RUNNING_EXECUTION);
  if (filters.model !== undefined) parts.push(`${SA.model.name} = ${quoted(filters.model, 'model')}`);
  if (filters.kind !== undefined) parts.push(`${SA.kind.name} = ${quoted(filters.kind, 'kind')}`);
  if (filters.schedule !== undefined) parts.push(`${SCHEDULED_BY.name} = ${quoted(filters.schedule, 'schedule')}`);
  if (filters.parent !== undefined) parts.push(`ParentWorkflowId = ${quoted(filters.parent, 'parent')}`);
  if (filters.tenant !== undefined) parts.push(`${SA.tenant.name} = ${quoted(filters.tenant, 'tenant')}`);
  return parts.join(' AND ');
}

export async function listRuns(client: Client, filters: ListFilters, kinds: KindRegistry): Promise<AgentListEntry[]> {
  const limit = filters.limit ?? 50;
  const out: AgentListEntry[] = [];
  if (limit <= 0) return out;
  for await (const wf of client.workflow.list({
    query: listQuery(filters, kinds),
    pageSize: Math.min(limit, 100),
  })) {
    out.push(listEntryOf(wf));
    if (out.length >= limit) break;
  }
  return out;
}

/** A run as `list` shows it, from its execution's search attributes (listed or described). */
export function listEntryOf(
  wf: Pick<WorkflowExecutionInfo, 'workflowId' | 'runId' | 'status' | 'typedSearchAttributes' | 'startTime'>,
): AgentListEntry {
  const sa = wf.typedSearchAttributes;
  return {
    id: wf.workflowId,
    runId: wf.runId,
    kind: sa.get(SA.kind),
    status: wf.status.name,
    agentStatus: shownStatus(wf.status.name, sa.get(SA.status), sa.get(SA.stopReason)),
    stopReason: sa.get(SA.stopReason),
    phase: sa.get(SA.phase),
    model: sa.get(SA.model),
    costUsd: sa.get(SA.costUsd),
    task: sa.get(SA.task),
    schedule: sa.get(SCHEDULED_BY),
    startTime: wf.startTime.toISOString(),
  };
}
