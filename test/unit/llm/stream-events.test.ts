import { assembleMessage, MessageAssembler } from '../../../src/llm/message-assembler';
import { type StreamEvent, type UsageEvent } from '../../../src/contracts/stream-events';

const start: StreamEvent = {
  type: 'start',
  provider: 'anthropic',
  model: 'claude-sonnet-4-6',
  responseId: 'msg_1',
  timestamp: 42,
};
const usage: UsageEvent = {
  type: 'usage',
  usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
  cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0, total: 0.3 },
};

describe('MessageAssembler', () => {
  it('orders blocks by index, whatever order their ends arrive in', () => {
    const message = assembleMessage([
      start,
      { type: 'text_start', index: 1 },
      { type: 'text_delta', index: 1, delta: 'partial' },
      { type: 'text_end', index: 1, text: 'final text' },
      { type: 'tool_call_end', index: 2, toolCall: { type: 'tool_call', id: 't1', name: 'x', arguments: { a: 1 } } },
      { type: 'thinking_end', index: 0, thinking: 'why', signature: 'sig' },
      usage,
      { type: 'done', stopReason: 'tool_use', rawStopReason: 'tool_use' },
    ]);
    expect(message).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'why', signature: 'sig' },
        { type: 'text', text: 'final text' },
        { type: 'tool_call', id: 't1', name: 'x', arguments: { a: 1 } },
      ],
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      usage: usage.usage,
      cost: usage.cost,
      stopReason: 'tool_use',
      rawStopReason: 'tool_use',
      responseId: 'msg_1',
      timestamp: 42,
    });
  });

  it('a stream that stopped early gives the finished blocks and an error stop reason', () => {
    const assembler = new MessageAssembler();
    for (const e of [
      start,
      { type: 'text_end', index: 0, text: 'done part' },
      { type: 'text_start', index: 1 },
      { type: 'text_delta', index: 1, delta: 'cut' },
    ] as StreamEvent[]) {
      assembler.push(e);
    }
    expect(assembler.message()).toMatchObject({
      content: [{ type: 'text', text: 'done part' }],
      stopReason: 'error',
      errorMessage: 'Stream ended without a done event.',
    });
    assembler.push({ type: 'error', failureType: 'LlmConnectionError', message: 'socket closed', retryable: true });
    expect(assembler.message()).toMatchObject({ stopReason: 'error', errorMessage: 'socket closed' });
  });

  it('refuses to assemble without a start event', () => {
    expect(() => assembleMessage([usage])).toThrow(/without a start event/);
  });
});
