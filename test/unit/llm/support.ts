/** Helpers shared by the LLM-layer tests. */
import { loadLlmConfig, type LlmConfig } from '../../../src/llm';
import type { AssistantMessage, Message, ToolResultMessage, ToolSpec } from '../../../src/contracts/message-model';
import { fakeProviderEnv, type FakeProvider } from '../../../src/testing/fake-provider';

/** One spec per adapter path: both Anthropic-format providers and both OpenAI-format ones. */
export const EVERY_ADAPTER = [
  'anthropic/claude-sonnet-4-6',
  'minimax/MiniMax-M2.5',
  'openai/gpt-4.1',
  'openai-compatible/llama3.1',
] as const;

export function configFor(
  fake: FakeProvider,
  overrides: Record<string, string | undefined> = {},
  timeoutMs?: number,
): LlmConfig {
  const config = loadLlmConfig({ file: null, env: { ...fakeProviderEnv(fake), ...overrides } });
  return timeoutMs === undefined ? config : { ...config, timeoutMs };
}

export const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 1 });

export const toolResult = (toolCallId: string, toolName: string, text: string, isError = false): ToolResultMessage => ({
  role: 'tool_result',
  toolCallId,
  toolName,
  content: [{ type: 'text', text }],
  isError,
  timestamp: 2,
});

export const TOOLS: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'list_dir',
    description: 'List a directory',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

/**
 * What must match across providers: content (tool-call ids replaced by their position), stop
 * reason and usage. Provider, model, ids, timestamps and prices legitimately differ.
 */
export function normalized(message: AssistantMessage): unknown {
  let n = 0;
  return {
    content: message.content.map((b) => (b.type === 'tool_call' ? { ...b, id: `call-${n++}` } : b)),
    stopReason: message.stopReason,
    usage: message.usage,
  };
}
