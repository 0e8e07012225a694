/**
 * A provider limit in the worker's config holds the whole fleet to it: two worker processes share
 * the limited queue's server-side rate, so the provider never sees more than its limit allows. And
 * without one, the fleet learns the provider's limit from its first refusals and paces its calls.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { rateLimited, reply } from '../../src/testing/fake-provider';
import { parsePace } from '../../src/worker/queue-pace';
import { queueRate } from '../../src/worker/queue-rate';
import { PRIMARY } from '../agent/agent-kit';
import { runCli } from '../kit/cli';
import { modelCallQueues, saveHistoryIfRecording, testConnection } from '../kit/temporal';
import { useWorkerHosts } from '../kit/worker-process';

/** The most requests any window of `windowMs` holds. */
function busiest(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('provider limits on the server', () => {
  const hosts = useWorkerHosts('fleet');

  it('40 runs on two workers against a provider limited to 120 a minute: no refusal, no window of ten seconds over the limit', async () => {
    const configFile = path.join(hosts.dir, 'durable-agents.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({ providers: { anthropic: { limits: { requestsPerMinute: 120, concurrency: 4 } } } }),
    );
    const taskQueue = `fleet-${crypto.randomUUID()}`;
    await hosts.start(taskQueue, { DURABLE_AGENTS_CONFIG: configFile });
    await hosts.start(taskQueue, { DURABLE_AGENTS_CONFIG: configFile });

    const times: number[] = [];
    hosts.fake.respond(() => {
      times.push(Date.now());
      return reply.text('Done.');
    });
    const { client } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const ids = await Promise.all(
      Array.from({ length: 40 }, (_, i) => agents.start({ task: `Job ${i}.`, model: PRIMARY })),
    );
    const results = await Promise.all(ids.map((id) => agents.result(id)));

    expect(results.map((r) => r.status)).toEqual(Array(40).fill('completed'));
    expect(hosts.fake.requests.filter((r) => r.status !== 200)).toEqual([]);
    expect(hosts.fake.requests).toHaveLength(40);
    // 120 a minute is 2 a second. The server's limiter may open a new rate with a burst of about
    // one second's worth. Requests reach the provider a moment after the server hands them out, and
    // on a loaded machine that moment varies by a second or more, bunching requests the server
    // handed out apart; so the rate is read over 10-second windows with two seconds' worth of
    // slack: none holds more than 2 × 10 + 2 + 4 (without the limit, all 40 come in a few seconds).
    // The requests span at least the time the limit needs for all but the burst, less the same two
    // seconds of arrival jitter (a late first request shortens the span).
    const first = Math.min(...times);
    expect(busiest(times, 10_000)).toBeLessThanOrEqual(2 * 10 + 2 + 4);
    expect(Math.max(...times) - first).toBeGreaterThanOrEqual(((40 - 5) / 2 - 2) * 1_000);
    await saveHistoryIfRecording(client.workflow.getHandle(ids[0]), 'agent-provider-limit');
    const queues = await modelCallQueues(client, ids[0]);
    // The run's first model call pins its tools on the run's own queue; seeing the model's limit
    // there, it asks the provider nothing, and the request goes through the limit's queue.
    expect(queues).toEqual([taskQueue, `${taskQueue}/llm/anthropic`]);
  }, 180_000);

  it('the storm with the provider limit configured: 20 runs against one request a second, at most 2 refused', async () => {
    hosts.fake.reset();
    const configFile = path.join(hosts.dir, 'storm.json');
    fs.writeFileSync(configFile, JSON.stringify({ providers: { anthropic: { limits: { requestsPerMinute: 60 } } } }));
    const taskQueue = `storm-${crypto.randomUUID()}`;
    await hosts.start(taskQueue, { DURABLE_AGENTS_CONFIG: configFile });
    // A provider that allows one request a second, metered by a bucket that holds two, which also
    // absorbs the varying moment a request reaches the provider after the server hands it out.
    hosts.fake.respond(rateLimited({ perSecond: 1, burst: 2 }, () => reply.text('Done.')));
    const { client } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) => agents.start({ task: `Job ${i}.`, model: PRIMARY })),
    );
    const results = await Promise.all(ids.map((id) => agents.result(id)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill('completed'));
    expect(hosts.fake.requests.filter((r) => r.status === 429).length).toBeLessThanOrEqual(2);
  }, 180_000);

  it('the storm without a limit: 20 runs on two workers against one request a second, at most one refused per accepted', async () => {
    hosts.fake.reset();
    const configFile = path.join(hosts.dir, 'no-limits.json');
    fs.writeFileSync(configFile, '{}');
    const taskQueue = `learn-${crypto.randomUUID()}`;
    const paced = `${taskQueue}/llm/anthropic`;
    await hosts.start(taskQueue, { DURABLE_AGENTS_CONFIG: configFile });
    await hosts.start(taskQueue, { DURABLE_AGENTS_CONFIG: configFile });
    // One request a second, strictly: a bucket that holds one. A refusal asks to wait 1 s.
    hosts.fake.respond(rateLimited({ perSecond: 1 }, () => reply.text('Done.')));
    const { client, address, namespace } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) => agents.start({ task: `Job ${i}.`, model: PRIMARY })),
    );
    const results = await Promise.all(ids.map((id) => agents.result(id)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill('completed'));
    const accepted = hosts.fake.requests.filter((r) => r.status === 200).length;
    const refused = hosts.fake.requests.filter((r) => r.status === 429).length;
    expect(accepted).toBe(20);
    expect(refused).toBeLessThanOrEqual(accepted);

    // The provider's queue keeps the rate the fleet learned; the runs refused at first called there.
    const pace = parsePace((await queueRate(client.workflowService, namespace, paced)).reason);
    expect(pace).toEqual({ requestsPerMinute: expect.any(Number), learnedSince: expect.any(Number) });
    expect(pace?.requestsPerMinute).toBeLessThanOrEqual(60);
    const queues = await Promise.all(ids.map((id) => modelCallQueues(client, id)));
    expect(queues.filter((q) => q.includes(paced)).length).toBeGreaterThan(0);

    const show = await runCli(['limits', 'show', '--json'], {
      cwd: hosts.dir,
      env: {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        DURABLE_AGENTS_TASK_QUEUE: taskQueue,
        DURABLE_AGENTS_CONFIG: configFile,
      },
    });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toEqual([
      expect.objectContaining({
        key: 'anthropic',
        taskQueue: paced,
        learned: { requestsPerMinute: pace?.requestsPerMinute, since: new Date(pace?.learnedSince ?? 0).toISOString() },
      }),
    ]);
  }, 180_000);
});
