/**
 * `list` as a table: a header, one row per run, the task's first line last; a SCHEDULE column
 * when a listed run was started by a schedule.
 */
import type { AgentListEntry } from '../client';
import { clip } from '../policy/previews';
import { statusWithReason } from './render-run';
import { usd } from '../common/decimal';

/** Characters of the task shown per row. */
const TASK_CHARS = 60;

/** An ISO time to the second, or `-` when there is none. */
export const when = (iso: string | undefined): string => (iso ? iso.replace(/\.\d+Z$/, 'Z') : '-');

export function formatList(runs: readonly AgentListEntry[]): string {
  const scheduled = runs.some((r) => r.schedule);
  const header = ['ID', 'KIND', 'STATUS', 'MODEL', 'COST', 'STARTED', ...(scheduled ? ['SCHEDULE'] : []), 'TASK'];
  const rows = runs.map((r) => [
    r.id,
    r.kind ?? '?',
    statusWithReason(r.agentStatus ?? r.status.toLowerCase(), r.stopReason),
    r.model ?? '',
    usd(r.costUsd ?? 0),
    when(r.startTime),
    ...(scheduled ? [r.schedule ?? '-'] : []),
    clip(r.task ?? '', TASK_CHARS),
  ]);
  return formatTable(header, rows);
}

/** Rows under a header in columns two spaces apart; the last column is not padded. */
export function formatTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
