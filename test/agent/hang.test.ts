/**
 * A provider that holds a call's connection open and never answers costs the run the idle timeout
 * and one retry under the model call's retry policy, not the ten-minute activity timeout.
 */
import { reply } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from './agent-kit';

const IDLE_MS = 1_500;

describe('a hung provider', () => {
  const fx = useAgentFixture({}, { llmConfig: () => ({ idleTimeoutMs: IDLE_MS }) });

  it.each([false, true])(
    'costs the idle timeout plus one retry (streaming to watchers: %s)',
    async (stream) => {
      const arrivals: number[] = [];
      fx.fake.respond(() => {
        arrivals.push(Date.now());
        return arrivals.length === 1 ? reply.hang() : reply.text('Answered on the retry.');
      });
      const state = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const id = await agents.start({ task: 'Say something.', model: PRIMARY, ...(stream ? { stream } : {}) });
        await agents.result(id);
        return agents.state(id);
      });
      expect(state).toMatchObject({ status: 'completed', finalText: 'Answered on the retry.', turn: 1 });
      // The hung attempt was retried by the activity's own retry policy: no failover, no failed model call.
      expect(state.events.filter((e) => e.type === 'model_failure' || e.type === 'provider_switch')).toEqual([]);
      expect(fx.fake.requests.map((r) => [r.status, r.stream])).toEqual([
        [0, true],
        [200, true],
      ]);
      const [hung, retried] = arrivals;
      // The idle timeout, then the retry policy's first interval (1 s), with room for a loaded machine.
      expect(retried - hung).toBeGreaterThanOrEqual(IDLE_MS);
      expect(retried - hung).toBeLessThan(IDLE_MS + 1_000 + 8_000);
    },
    60_000,
  );
});
