import type { NativeConnection } from '@temporalio/worker';
import { loadLlmConfig } from '../../../src/llm/llm-config';
import { LimitRoutes } from '../../../src/worker/limit-routes';

const config = loadLlmConfig({
  env: { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' },
  file: null,
  inline: {
    models: [
      {
        provider: 'openai',
        model: 'gpt-4o',
        contextWindow: 128000,
        maxOutputTokens: 16384,
        limits: { requestsPerMinute: 120 },
      },
    ],
  },
});
const GPT4O = { provider: 'openai', model: 'gpt-4o' };
const MINI = { provider: 'openai', model: 'gpt-4o-mini' };
const SONNET = { provider: 'anthropic', model: 'claude-sonnet-4-6' };

/** Routes bound to a worker on queue `q`; what is tested here never asks the server (a stand-in that throws if it did). */
function boundRoutes(): { routes: LimitRoutes; polled: string[] } {
  const routes = new LimitRoutes(config);
  const polled: string[] = [];
  const service = new Proxy({} as NativeConnection['workflowService'], {
    get: () => {
      throw new Error('the server was asked');
    },
  });
  routes.bind({
    service,
    namespace: 'default',
    taskQueue: 'q',
    poll: async (key) => void polled.push(key),
    onError: (message) => {
      throw new Error(message);
    },
  });
  return { routes, polled };
}

describe("which limit's queue a model call belongs on", () => {
  it("names the config's limits, and a limit the fleet learned or set once the worker knows of it", async () => {
    const { routes, polled } = boundRoutes();
    expect(routes.keyOf(GPT4O)).toBe('openai/gpt-4o');
    expect(routes.keyOf(MINI)).toBeUndefined();
    await routes.markLimited('openai');
    expect(polled).toEqual(['openai']);
    expect(routes.keyOf(MINI)).toBe('openai');
    expect(routes.keyOf(GPT4O)).toBe('openai/gpt-4o');
  });

  it("moves a call from the run's queue to its limit's, from its provider's to its model's own, and never back", async () => {
    const { routes } = boundRoutes();
    await routes.markLimited('openai');
    expect(routes.moveFrom('q', MINI)).toBe('openai');
    expect(routes.moveFrom('q', GPT4O)).toBe('openai/gpt-4o');
    expect(routes.moveFrom('q/llm/openai', GPT4O)).toBe('openai/gpt-4o');
    expect(routes.moveFrom('q/llm/openai', MINI)).toBeUndefined();
    expect(routes.moveFrom('q/llm/openai/gpt-4o', GPT4O)).toBeUndefined();
    expect(routes.moveFrom('q', SONNET)).toBeUndefined();
  });

  it("counts a call under its queue's limit, else its provider on the run's queue", () => {
    const { routes } = boundRoutes();
    expect(routes.keyOfCall('q/llm/openai/gpt-4o', GPT4O)).toBe('openai/gpt-4o');
    expect(routes.keyOfCall('q', GPT4O)).toBe('openai/gpt-4o');
    expect(routes.keyOfCall('q', SONNET)).toBe('anthropic');
    expect(routes.keyOfCall('elsewhere', SONNET)).toBeUndefined();
  });

  it('routes nothing before its worker runs', async () => {
    const routes = new LimitRoutes(config);
    expect(routes.moveFrom('q', GPT4O)).toBeUndefined();
    await routes.refresh(SONNET);
    expect(routes.keyOf(SONNET)).toBeUndefined();
  });
});
