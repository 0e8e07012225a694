import type { AgentResult } from '../../src/contracts/agent-run';
import { rateLimited, reply } from '../../src/testing/fake-provider';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from './agent-kit';

describe('a provider rate limit never fails a run within its patience', () => {
  const fx = useAgentFixture();

  it('20 runs against a provider that allows one request a second all complete', async () => {
    fx.fake.respond(rateLimited({ perSecond: 1 }, () => reply.text('Done.')));
    const results = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const ids = await Promise.all(
        Array.from({ length: 20 }, (_, i) => agents.start({ task: `Job ${i}.`, model: PRIMARY })),
      );
      return Promise.all(ids.map((id) => agents.result(id)));
    });
    expect(results.map((r: AgentResult) => r.status)).toEqual(Array(20).fill('completed'));
    expect(results.every((r) => r.finalText === 'Done.')).toBe(true);
    expect(fx.fake.requests.filter((r) => r.status === 200)).toHaveLength(20);
  }, 180_000);

  it('a refused call waits out the retry-after and is made again', async () => {
    fx.fake.script(reply.error(429, { headers: { 'retry-after': '1' } }), reply.text('Done.'));
    const { result, state } = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Work on it.', model: { primary: PRIMARY, attemptsPerProvider: 1 } });
      const result = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-rate-limit-wait');
      return { result, state: await agents.state(id) };
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'Done.' });
    expect(state.events.filter((e) => e.type === 'model_failure')).toMatchObject([{ failureType: 'LlmRateLimited' }]);
    expect(fx.fake.requests.map((r) => r.status)).toEqual([429, 200]);
    const events = state.messages.filter((m) => m.kind === 'system_event');
    expect(await Promise.all(events.map((m) => fx.store.get(m.hash)))).toEqual([
      expect.objectContaining({
        text: expect.stringMatching(/^Rate limited by anthropic\/claude-sonnet-4-6: calling it/),
      }),
    ]);
  });

  it('a run whose patience is spent fails with the rate limit', async () => {
    fx.fake.respond(() => reply.error(429, { headers: { 'retry-after': '1' } }));
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Work on it.',
        model: { primary: PRIMARY, attemptsPerProvider: 1, rateLimitPatienceMs: 1_500 },
      });
      return agents.result(id);
    });
    expect(result).toMatchObject({ status: 'failed', error: { type: 'LlmRateLimited' } });
    expect(fx.fake.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('a patience that is not whole milliseconds is refused before the run starts', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      await expect(
        agents.start({ task: 'Work on it.', model: { primary: PRIMARY, rateLimitPatienceMs: -5 } }),
      ).rejects.toThrow(/rateLimitPatienceMs/);
    });
  });
});
