/**
 * Retention of the content store: which conversations may go. A conversation goes when Temporal
 * says its run is closed and closed before the window; a running one is never touched, and one
 * Temporal cannot confirm closed (unknown there, or Temporal unreachable) only with `force`, and
 * then only when the store has not written to it within the window.
 */
import { errorText } from '../common/error-text';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { StoredConversation } from '../store';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `90m`, `45s`, `2w` in milliseconds; throws one line for anything else. */
export function parseAge(text: string): number {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  if (!match || Number(match[1]) === 0)
    throw new Error(`"${text}" is not an age like 30d, 12h, 90m, 45s or 2w (a positive whole number and a unit).`);
  return Number(match[1]) * UNITS[match[2]];
}

/** What Temporal says of a conversation's latest run. */
export type RunStatus =
  { type: 'running' } | { type: 'closed'; status: string; closedAt: number } | { type: 'unknown'; why: string };

export interface GcDecision {
  id: string;
  delete: boolean;
  reason: string;
}

/** Asks Temporal about the latest run of the workflow id the conversation belongs to. */
export async function describeRun(client: Client, id: string): Promise<RunStatus> {
  try {
    const description = await client.workflow.getHandle(id).describe();
    const status = description.status.name;
    if (status === 'RUNNING') return { type: 'running' };
    if (!description.closeTime)
      return { type: 'unknown', why: `Temporal reports status ${status} without a close time` };
    return { type: 'closed', status: status.toLowerCase(), closedAt: description.closeTime.getTime() };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      return { type: 'unknown', why: 'Temporal does not know this run (past its retention, or another namespace)' };
    return { type: 'unknown', why: `Temporal could not be asked: ${errorText(err)}` };
  }
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The decision for one conversation; `cutoff` is now minus the window. */
export function decide(conversation: StoredConversation, run: RunStatus, cutoff: number, force: boolean): GcDecision {
  const { id } = conversation;
  if (run.type === 'running') return { id, delete: false, reason: 'running' };
  if (run.type === 'closed')
    return run.closedAt < cutoff
      ? { id, delete: true, reason: `${run.status} on ${day(run.closedAt)}` }
      : { id, delete: false, reason: `${run.status} on ${day(run.closedAt)}, within the window` };
  if (!force) return { id, delete: false, reason: `${run.why}; --force deletes it when its last write is old enough` };
  return conversation.lastWriteAt < cutoff
    ? { id, delete: true, reason: `${run.why}; forced, last written ${day(conversation.lastWriteAt)}` }
    : { id, delete: false, reason: `${run.why}; last written ${day(conversation.lastWriteAt)}, within the window` };
}
