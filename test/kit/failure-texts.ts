/**
 * What the runs of a jest run told anyone about their failures, scanned for "[object Object]": every
 * history on the kit's own dev server (failure messages, error results, event previews), payloads
 * read as text. The global teardown runs it, so a message that prints an object as "[object Object]"
 * anywhere in the suite fails the run.
 */
import { connectClient, connectionSettingsFromEnv } from '../../src/connection/connection-settings';

const OBJECT = '[object Object]';
/** Histories read at once. */
const PARALLEL = 8;
/** Characters shown around each finding. */
const AROUND = 120;
/** Runs whose id starts with this plant "[object Object]" on purpose (the scan's own test); the teardown skips them. */
export const PROBE_PREFIX = 'object-object-probe-';

/**
 * Payload bytes as the text they hold: a history serialises to JSON through its messages' own
 * `toJSON`, which writes bytes (a payload's `data`) in base64.
 */
function asText(key: string, value: unknown): unknown {
  return key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value;
}

/**
 * One line per history that holds "[object Object]", of the runs `query` selects (default all) but
 * the probes: its workflow id and the text around it.
 */
export async function objectObjectFailures(
  address: string,
  namespace: string,
  options: { query?: string; probes?: boolean } = {},
): Promise<{ scanned: number; found: string[] }> {
  const client = await connectClient(
    connectionSettingsFromEnv({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace }),
  );
  try {
    const runs: { workflowId: string; runId: string }[] = [];
    for await (const run of client.workflow.list(options.query ? { query: options.query } : {}))
      if (options.probes || !run.workflowId.startsWith(PROBE_PREFIX))
        runs.push({ workflowId: run.workflowId, runId: run.runId });
    const found: string[] = [];
    for (let i = 0; i < runs.length; i += PARALLEL) {
      await Promise.all(
        runs.slice(i, i + PARALLEL).map(async ({ workflowId, runId }) => {
          const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
          const text = JSON.stringify(history, asText);
          const at = text.indexOf(OBJECT);
          if (at >= 0)
            found.push(`${workflowId}: …${text.slice(Math.max(0, at - AROUND), at + OBJECT.length + AROUND)}…`);
        }),
      );
    }
    return { scanned: runs.length, found };
  } finally {
    await client.connection.close();
  }
}
