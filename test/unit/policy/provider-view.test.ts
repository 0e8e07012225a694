import { planRecitation, toProviderMessages } from '../../../src/policy/provider-view';
import type { LoggedBody } from '../../../src/contracts/stored-body';
import { emptyCost, emptyUsage, type AssistantMessage } from '../../../src/contracts/message-model';

describe('conversion to the provider view', () => {
  const assistant = (provider: string): AssistantMessage => ({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'text', text: 'answer' },
    ],
    provider,
    model: 'm',
    usage: emptyUsage(),
    cost: emptyCost(),
    stopReason: 'stop',
    timestamp: 1,
  });

  it('drops app-only kinds, turns summaries into user messages and hands over signed reasoning only to its provider', () => {
    const logged: LoggedBody[] = [
      { kind: 'user', body: { role: 'user', content: 'hi', timestamp: 0 } },
      { kind: 'context_note', body: { role: 'context_note', text: 'switched queue', timestamp: 0 } },
      { kind: 'assistant', body: assistant('anthropic') },
      { kind: 'tool_log', body: { role: 'tool_log', text: 'ran', timestamp: 0 } },
    ];
    const same = toProviderMessages(logged, 'anthropic', { text: 'earlier', timestamp: 0 });
    expect(same.map((m) => m.role)).toEqual(['user', 'user', 'assistant']);
    expect(same[0].content).toBe('Summary of the earlier conversation:\nearlier');
    expect((same[2] as AssistantMessage).content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const other = toProviderMessages(logged, 'openai');
    expect((other[1] as AssistantMessage).content.map((b) => b.type)).toEqual(['text']);
  });

  it('recites a plan as a todo list', () => {
    expect(planRecitation(undefined)).toBeUndefined();
    expect(
      planRecitation([
        { id: '1', title: 'search', done: true },
        { id: '2', title: 'write', done: false },
      ]),
    ).toBe('Current plan (todo list):\n[x] 1. search\n[ ] 2. write');
  });
});
