/** Writes a run's history to a file in the JSON form `temporal workflow show -o json` writes. */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

export interface RecordHistoryOptions {
  /** A run of the workflow other than its latest. */
  runId?: string;
  /** Refuse a run that is still running (a history for a test suite should be complete). */
  closedOnly?: boolean;
}

/** What {@link recordHistory} wrote. */
export interface RecordedHistoryFile {
  file: string;
  workflowType: string;
  /** The run's status when it was recorded, e.g. `COMPLETED`, `RUNNING`. */
  status: string;
}

/**
 * Fetches the history of `workflowId` (its latest run unless `runId`) and writes it to `file`,
 * creating the directory; `replayHistories([file])` replays it. Throws the client's
 * `WorkflowNotFoundError` for an unknown workflow.
 */
export async function recordHistory(
  client: Client,
  workflowId: string,
  file: string,
  options: RecordHistoryOptions = {},
): Promise<RecordedHistoryFile> {
  const handle = client.workflow.getHandle(workflowId, options.runId);
  const description = await handle.describe();
  if (options.closedOnly && description.status.name === 'RUNNING')
    throw new Error(`${workflowId} is still running: record its history once the run has finished.`);
  const history = await handle.fetchHistory();
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, `${historyToJSON(history)}\n`);
  return { file, workflowType: description.type, status: description.status.name };
}
