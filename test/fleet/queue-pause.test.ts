/**
 * A 429 with a retry-after holds the provider's limited queue for the whole fleet: the server's
 * rate for that queue goes to 0 for the period, so no worker takes another call of any run, and a
 * rate comes back after, the configured one cut, rising back to it, restored by any worker (the one
 * that paused it may be dead).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { LLM_FAILURE } from '../../src/contracts/failure-types';
import { loadLlmConfig } from '../../src/llm/llm-config';
import { llmQueueOf } from '../../src/policy/llm-queues';
import { LimitRoutes } from '../../src/worker/limit-routes';
import { PAUSE_SWEEP_MS, QueuePacer } from '../../src/worker/queue-pacer';
import { CUT, parsePace } from '../../src/worker/queue-pace';
import { keepPace, queueRate, refuseQueue, startQueueRate } from '../../src/worker/queue-rate';
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

  it('holds the queue for every run and worker for the retry-after, then gives it the configured rate cut', async () => {
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
    const pausedUntil = expect.any(Number);
    expect(parsePace(during.reason)).toEqual({
      requestsPerMinute: 600 * CUT,
      pausedUntil,
      learnedSince: pausedUntil,
      upTo: 600,
    });

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
    // The learned rate, rising back to the configured one from the end of the pause.
    const after = await queueRate(service, client.options.namespace, limited);
    expect(parsePace(after.reason)).toEqual({ requestsPerMinute: 600 * CUT, learnedSince: pausedUntil, upTo: 600 });
    expect(after.requestsPerMinute).toBeGreaterThanOrEqual(600 * CUT);
    expect(after.requestsPerMinute).toBeLessThan(600);
  }, 180_000);

  it('a pause whose worker died is ended by another worker; a pause only ever lengthens another', async () => {
    const { limited } = await limitedFleet('orphan', 120, 1);
    const { client } = await testConnection();
    const service = client.workflowService;
    const { namespace } = client.options;
    const now = Date.now();
    const refusal = { at: now, retryAfterMs: 4_000, callStartedAt: now - 100, acceptedRecently: 0 };
    const paused = { requestsPerMinute: 120 * CUT, pausedUntil: now + 4_000, learnedSince: now + 4_000, upTo: 120 };
    expect(await refuseQueue(service, namespace, limited, refusal)).toEqual(paused);
    // A shorter pause (another worker's 429 a moment later, of a call handed out before) changes nothing.
    expect(await refuseQueue(service, namespace, limited, { ...refusal, at: now + 10, retryAfterMs: 1_000 })).toBe(
      undefined,
    );
    expect(await keepPace(service, namespace, limited, now + 2_000)).toEqual(paused);
    expect(await queueRate(service, namespace, limited)).toMatchObject({ requestsPerMinute: 0 });
    // A worker that starts during the pause keeps it and the learned rate, which rises to its own limit.
    expect(await startQueueRate(service, namespace, limited, 90, { keepLearned: true })).toEqual({
      pausedUntil: now + 4_000,
      learned: { ...paused, upTo: 90 },
    });
    // Nobody that paused it is alive: the running worker's sweep gives the rate back after the pause.
    await waitFor(() => Date.now() > now + 4_000, 'the pause to be over', 10_000);
    const deadline = Date.now() + PAUSE_SWEEP_MS + 5_000;
    let rate = await queueRate(service, namespace, limited);
    while (rate.requestsPerMinute === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      rate = await queueRate(service, namespace, limited);
    }
    expect(parsePace(rate.reason)).toEqual({ requestsPerMinute: 120 * CUT, learnedSince: now + 4_000, upTo: 90 });
    expect(rate.requestsPerMinute).toBeGreaterThanOrEqual(120 * CUT);
    // `limits set` gives the configured rate, learned or not.
    expect(await startQueueRate(service, namespace, limited, 90)).toEqual({});
    expect(await queueRate(service, namespace, limited)).toEqual({
      requestsPerMinute: 90,
      reason: 'durable-agents: 90 model calls a minute',
    });
  }, 120_000);

  it("a worker's refusals of one queue made at once leave its longest pause and one cut: each starts from the one before", async () => {
    const { client } = await testConnection();
    const service = client.workflowService;
    const { namespace } = client.options;
    const taskQueue = `refusals-${crypto.randomUUID()}`;
    const limited = llmQueueOf(taskQueue, 'anthropic');
    const llm = loadLlmConfig({
      env: { ANTHROPIC_API_KEY: 'k' },
      file: null,
      inline: { providers: { anthropic: { limits: { requestsPerMinute: 120 } } } },
    });
    const routes = new LimitRoutes(llm);
    const problems: string[] = [];
    const onError = (message: string) => void problems.push(message);
    routes.bind({ service, namespace, taskQueue, poll: async () => undefined, onError });
    const pacer = new QueuePacer(routes);
    pacer.bind({ service, namespace, onError });
    try {
      await startQueueRate(service, namespace, limited, 120);
      // A model call of the worker's own queue that the provider refuses with this retry-after.
      const refused = (retryAfterMs: number) =>
        pacer.interceptor({ info: { activityType: 'callModel', taskQueue } } as unknown as Context).inbound!.execute!(
          { args: [{ model: PRIMARY }], headers: {} },
          () =>
            Promise.reject(ApplicationFailure.create({ type: LLM_FAILURE.rateLimited, details: [{ retryAfterMs }] })),
        ).catch(() => undefined);
      const before = Date.now();
      // The longest first: recorded each from the server's state alone, a later, shorter one would end it early.
      await Promise.all([8_000, 1_000, 2_000, 3_000, 1_500, 2_500, 500, 1_000].map(refused));
      const pace = parsePace((await queueRate(service, namespace, limited)).reason);
      expect(pace?.pausedUntil).toBeGreaterThanOrEqual(before + 8_000);
      expect(pace?.requestsPerMinute).toBeCloseTo(120 * CUT);
      expect(problems).toEqual([]);
    } finally {
      pacer.close();
    }
  }, 60_000);
});
