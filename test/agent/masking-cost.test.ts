/**
 * Masking by the cost of the prompt cache, on a real server against the fake provider's prompt
 * cache: the default masking masks each result once the model has answered it, and the run is
 * billed cache reads for the prefix its calls share.
 */
import { z } from 'zod';
import { llmClient } from '../../src/llm';
import { createAgentActivities } from '../../src/activities/agent';
import { createToolActivities } from '../../src/activities/tool-activities';
import { reply } from '../../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../../src/tools';
import { withWorker } from '../kit/temporal';
import { PRIMARY, resultTexts, useAgentFixture } from './agent-kit';

const entry = (n: number): string => `entry ${n}: ${'abcdefghij'.repeat(800)}`;

describe('masking by the cost of the prompt cache', () => {
  const fx = useAgentFixture();
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'lookup',
      description: 'Looks an entry up.',
      parameters: z.object({ n: z.number() }),
      timeoutMs: 5_000,
      execute: ({ n }) => entry(n),
    }),
  );
  afterAll(() => registry.close());

  it('masks each result once the model has answered it, and the calls read their shared prefix from the cache', async () => {
    fx.fake.script(
      ...[1, 2, 3, 4].map((n) => reply.toolCalls([{ name: 'lookup', arguments: { n }, id: `toolu_cost${n}` }])),
      reply.text('Entry 4 is the last.'),
    );
    const activities = createAgentActivities({
      store: fx.store,
      tools: createToolActivities(registry),
      llm: llmClient(fx.llm),
    });
    const result = await withWorker({ activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      // A system prompt over the 1,024 tokens a provider caches at least, as the stable prefix.
      const systemPrompt = 'Answer from the entries you look up. '.repeat(120);
      return agents.result(await agents.start({ task: 'Look up 1 to 4.', model: PRIMARY, systemPrompt }));
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'Entry 4 is the last.' });
    const requests = fx.fake.requests;
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (let call = 2; call <= 5; call++) {
      const texts = resultTexts(requests[call - 1]);
      expect(texts[texts.length - 1]).toBe(entry(call - 1));
      expect(texts.slice(0, -1).every((t) => t.includes('not shown') && t.length < 400)).toBe(true);
    }
    expect(result.billing?.cacheReadTokens).toBeGreaterThan(0);
    expect(result.billing?.cacheWriteTokens).toBeGreaterThan(0);
  });
});
