/**
 * Against real providers, only when asked: DURABLE_AGENTS_LIVE_MODELS="anthropic/claude-haiku-4-5,openai/gpt-5-mini"
 * with the providers' API keys in the environment. Costs a few cents per model.
 */
import { complete, loadLlmConfig, streamMessage } from '../../../src/llm';
import { toolCallsOf, type Message } from '../../../src/contracts/message-model';
import { TOOLS, toolResult, user } from './support';

const specs = (process.env.DURABLE_AGENTS_LIVE_MODELS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const live = specs.length > 0 ? describe : describe.skip;

live('live providers', () => {
  const config = loadLlmConfig({ env: process.env });
  it.each(specs)('%s: a forced tool call, its result, and a final answer, with usage and cost', async (spec) => {
    const messages: Message[] = [user('Read the file named notes.txt, then tell me its first word.')];
    const first = await complete(
      {
        model: spec,
        messages,
        options: { tools: TOOLS, toolChoice: { type: 'tool', name: 'read_file' }, maxTokens: 512 },
      },
      { config },
    );
    const calls = toolCallsOf(first);
    expect(calls[0]).toMatchObject({ name: 'read_file', arguments: { path: expect.stringContaining('notes') } });
    messages.push(first, ...calls.map((c) => toolResult(c.id, c.name, 'Pineapples grow slowly.')));
    const second = await streamMessage(
      { model: spec, messages, options: { tools: TOOLS, maxTokens: 512 } },
      { config },
    );
    expect(second.stopReason).toBe('stop');
    expect(JSON.stringify(second.content)).toMatch(/pineapple/i);
    expect(second.usage.inputTokens + second.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(second.usage.outputTokens).toBeGreaterThan(0);
  });
});
