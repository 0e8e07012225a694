/**
 * A 429 with a retry-after holds the provider's limited queue for the whole fleet: the server's
 * rate for that queue goes to 0 for the period, so no worker takes another call of any run, and the
 * configured rate comes back after, restored by any worker (the one that paused it may be dead).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { PAUSE_SWEEP_MS, parsePause, pauseQueue, queueRate, resumeIfOver } from '../../src/worker/queue-pause';
import { startQueueRate } from '../../src/worker/limit-workers';
import { PRIMARY, waitFor } from '../agent/agent-kit';
import { testConnection } from '../kit/temporal';
import { useWorkerHosts } from '../kit/worker-process';

/** When the server handed out each model call of the run (its ActivityTaskStarted events), in ms. */
async function callModelStarts(client: Client, id: string): Promise<number[]> {
  const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const calls = new Set(
    events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [Number(e.eventId)] : [],
    ),
  );
  return events.flatMap((e) =>
    calls.has(Number(e.activityTaskStartedEventAttributes?.scheduledEventId)) && e.eventTime
      ? [tsToMs(e.eventTime)]
      : [],
  );
}

describe("a provider's 429 and its limited queue", () => {
  const hosts = useWorkerHosts('queue-pause');

  async function limitedFleet(name: string, requestsPerMinute: number, count: number) {
    const configFile = path.join(hosts.dir, `${name}.json`);
    fs.writeFileSync(configFile, JSON.stringify({ providers: { anthropic: { limits: { requestsPerMinute } } } }));
    const taskQueue = `${name}-${crypto.randomUUID()}`;
    for (let i = 0; i < count; i++) await hosts.start(taskQueue, { DURABLE_AGENTS_CONFIG: configFile });
    return { taskQueue, limited: `${taskQueue}/llm/anthropic` };
  }

  it('holds the queue for every run and worker for the retry-after, then gives the configured rate back', async () => {
    const { taskQueue, limited } = await limitedFleet('pause', 600, 2);
    const times: number[] = [];
    let refusedAt = 0;
    hosts.fake.respond(() => {
      times.push(Date.now());
      if (times.length !== 4) return reply.text('Done.');
      refusedAt = Date.now();
      return reply.error(429, { headers: { 'retry-after': '4' } });
    });
    const { client } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const ids = await Promise.all(
      Array.from({ length: 16 }, (_, i) => agents.start({ task: `Job ${i}.`, model: PRIMARY })),
    );
    await waitFor(() => refusedAt > 0, 'the 429', 60_000);
    const service = client.workflowService;
    let during = await queueRate(service, client.options.namespace, limited);
    for (let i = 0; i < 40 && during.requestsPerMinute !== 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      during = await queueRate(service, client.options.namespace, limited);
    }
    expect(during.requestsPerMinute).toBe(0);
    const pauseSeen = Date.now();
    expect(parsePause(during.reason)).toEqual({ until: expect.any(Number), requestsPerMinute: 600 });

    const results = await Promise.all(ids.map((id) => agents.result(id)));
    expect(results.map((r) => r.stopReason)).toEqual(Array(16).fill('completed'));
    expect(hosts.fake.requests.filter((r) => r.status === 429)).toHaveLength(1);
    // The pause lands on the server a moment after the 429; from then until the retry-after is over,
    // no worker takes a call of any run: the server hands out none (the calls it handed out before
    // may reach the provider later on a busy machine). Unpaused, 600 a minute would have handed out
    // some 24 calls in that window.
    const handedOut = (await Promise.all(ids.map((id) => callModelStarts(client, id)))).flat();
    expect(handedOut.filter((t) => t > pauseSeen && t < refusedAt + 3_900)).toEqual([]);
    expect(times.filter((t) => t >= refusedAt + 3_900).length).toBeGreaterThan(0);
    const after = await queueRate(service, client.options.namespace, limited);
    expect(after).toEqual({ requestsPerMinute: 600, reason: 'durable-agents: 600 model calls a minute' });
  }, 180_000);

  it('a pause whose worker died is ended by another worker; a pause only ever lengthens another', async () => {
    const { limited } = await limitedFleet('orphan', 120, 1);
    const { client } = await testConnection();
    const service = client.workflowService;
    const { namespace } = client.options;
    const now = Date.now();
    await pauseQueue(service, namespace, limited, now + 4_000, 120);
    // A shorter pause (another worker's 429 a moment later) leaves the longer one in place.
    expect(await pauseQueue(service, namespace, limited, now + 1_000, 120)).toBeUndefined();
    expect(await resumeIfOver(service, namespace, limited, now + 2_000)).toBe(false);
    expect(parsePause((await queueRate(service, namespace, limited)).reason)?.until).toBe(now + 4_000);
    // A worker that starts during the pause keeps it, with its own rate to come back after.
    expect(await startQueueRate(service, namespace, limited, 90)).toEqual({ pausedUntil: now + 4_000 });
    // Nobody that paused it is alive: the running worker's sweep gives the rate back after the pause.
    await waitFor(() => Date.now() > now + 4_000, 'the pause to be over', 10_000);
    const deadline = Date.now() + PAUSE_SWEEP_MS + 5_000;
    let rate = await queueRate(service, namespace, limited);
    while (rate.requestsPerMinute !== 90 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      rate = await queueRate(service, namespace, limited);
    }
    expect(rate).toEqual({ requestsPerMinute: 90, reason: 'durable-agents: 90 model calls a minute' });
  }, 120_000);
});
