// What a worker holds per cached run, for bench/concurrency.ts: runs parked on an approval against none.
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import type { DurableAgentsPlugin } from '../src/worker/plugin';

/** The process's heap and resident memory after full garbage collections. */
function memoryAfterGc(): { heap: number; rss: number } {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

/**
 * What a worker holds per cached run: `runs` runs wait on an approval, so each stays in the
 * worker's cache with its workflow state, measured against the same worker with none. Workflow
 * code normally runs on a worker thread, whose heap this process cannot read; this worker runs it
 * on the main thread (`debugMode`, the same reusable V8 context), so the heap figure covers the
 * workflow state (its own module instances, promises, the run's state) and the activities' caches.
 * The resident-memory delta also counts the SDK core's native state per run, but the allocator
 * keeps freed pages, so it is a rough figure.
 */
export async function memoryPerCachedRun(
  options: { connection: NativeConnection; plugin: DurableAgentsPlugin },
  client: Client,
  runs: number,
): Promise<{ heapBytes: number; rssBytes: number }> {
  const taskQueue = 'bench-concurrency-parked';
  const worker = await Worker.create({
    connection: options.connection,
    taskQueue,
    plugins: [options.plugin],
    debugMode: true,
    maxCachedWorkflows: runs + 10,
  });
  const agents = new AgentClient(client, taskQueue);
  const park = (i: number) =>
    agents.start({ tools: { approve: ['lookup'] }, task: `Park (run ${i}).`, model: 'anthropic/claude-sonnet-4-6' });
  const waitParked = async (ids: string[]) => {
    const deadline = Date.now() + 300_000;
    for (const id of ids) {
      while ((await agents.state(id)).pendingApprovals.length === 0) {
        if (Date.now() > deadline) throw new Error(`run ${id} never asked for approval`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  return worker.runUntil(async () => {
    // One parked run first, so the bundle's shared modules and the worker's own state are counted in `before`.
    const warm = await park(-1);
    await waitParked([warm]);
    const before = memoryAfterGc();
    const ids: string[] = [];
    for (let from = 0; from < runs; from += 50)
      ids.push(...(await Promise.all(Array.from({ length: Math.min(50, runs - from) }, (_, k) => park(from + k)))));
    await waitParked(ids);
    const after = memoryAfterGc();
    await Promise.all([warm, ...ids].map((id) => agents.terminate(id, 'bench done')));
    return { heapBytes: (after.heap - before.heap) / runs, rssBytes: (after.rss - before.rss) / runs };
  });
}
