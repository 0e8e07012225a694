/**
 * Neutral request → Anthropic Messages request (also MiniMax's Anthropic-compatible endpoint).
 *
 * - Thinking blocks with signatures go back only to the family that wrote them (any Claude model
 *   on `anthropic`; the same model on other Anthropic-format providers); elsewhere they are
 *   dropped (their signature would be rejected, and as plain text models tend to imitate them).
 * - Prompt-cache breakpoints (at most 3 of the 4 allowed): the end of the stable prefix (system
 *   prompt, or the last tool when there is no system prompt), the last block of the conversation
 *   and the last block of the user turn before it.
 * - JSON response formats are emulated with a system instruction: Anthropic-format endpoints
 *   have no portable `response_format`, and a forced tool would conflict with the caller's own
 *   tools, tool choice and thinking.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { CallOptions, ImageBlock, Message, TextBlock, ToolChoice } from '../../contracts/message-model';
import type { ResolvedCall } from '../adapter-types';
import { toAnthropicToolId } from '../tool-ids';
import { jsonInstruction } from '../response-format';

type MessageParam = Anthropic.MessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;
/** Sampling fields are gone from the SDK's types but still accepted by MiniMax and older Claude models. */
type Params = Anthropic.MessageCreateParamsNonStreaming & { temperature?: number; top_p?: number };

/** Anthropic rejects thinking budgets below this. */
const MIN_THINKING_BUDGET = 1024;
const DEFAULT_MAX_TOKENS = 16_384;
const EPHEMERAL = { type: 'ephemeral' } as const;

export function toAnthropicParams({ request, provider: { id: providerId }, model, info }: ResolvedCall): Params {
  const options: CallOptions = request.options ?? {};
  const cache = options.cache !== false;
  const messages = toAnthropicMessages(request.messages, providerId, model);
  const maxTokens = options.maxTokens ?? Math.min(info.maxOutputTokens, DEFAULT_MAX_TOKENS);
  const wantsThinking =
    options.thinkingBudget !== undefined && options.thinkingBudget > 0 && (info.capabilities.thinking || !info.known);
  // With thinking on, an assistant turn that ends in tool calls must start with a signed thinking
  // block. A turn handed over from another provider has none, so thinking waits for the next turn.
  // Thinking also cannot go with a forced tool choice; the explicit choice wins.
  const forcesTool = options.toolChoice === 'required' || typeof options.toolChoice === 'object';
  const thinking = wantsThinking && !forcesTool && tailToolTurnHasThinking(messages);
  const budget = Math.max(MIN_THINKING_BUDGET, options.thinkingBudget ?? 0);

  // Thinking counts against the output limit: its budget comes on top of the answer's, within the model's limit.
  const limit = info.known ? info.maxOutputTokens : Number.POSITIVE_INFINITY;
  const params: Params = { model, max_tokens: thinking ? Math.min(maxTokens + budget, limit) : maxTokens, messages };
  const systemText = [request.systemPrompt, jsonInstruction(options.responseFormat)].filter(Boolean).join('\n\n');
  if (systemText) params.system = [{ type: 'text', text: systemText, ...(cache ? { cache_control: EPHEMERAL } : {}) }];
  if (options.tools?.length) {
    params.tools = options.tools.map((t, i, all) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters as Anthropic.Tool.InputSchema,
      ...(cache && !systemText && i === all.length - 1 ? { cache_control: EPHEMERAL } : {}),
    }));
  }
  // Without tools there is nothing to choose; both APIs refuse a tool_choice alone.
  if (options.toolChoice && options.tools?.length) params.tool_choice = toolChoice(options.toolChoice);
  if (thinking) {
    params.thinking = info.capabilities.adaptiveThinking
      ? { type: 'adaptive' }
      : { type: 'enabled', budget_tokens: budget };
  } else {
    // Anthropic refuses temperature and top_p together with thinking.
    if (options.temperature !== undefined) params.temperature = options.temperature;
    if (options.topP !== undefined) params.top_p = options.topP;
  }
  if (options.stopSequences?.length) params.stop_sequences = options.stopSequences;
  if (cache) markConversationTail(messages);
  return params;
}

function toolChoice(choice: ToolChoice): Anthropic.ToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.name };
}

/** Converts and merges consecutive same-role turns, as the Messages API requires alternation. */
function toAnthropicMessages(messages: Message[], providerId: string, model: string): MessageParam[] {
  const out: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]): void => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === 'user') {
      const content =
        typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
      push('user', content.flatMap(userBlock));
    } else if (message.role === 'tool_result') {
      push('user', [
        {
          type: 'tool_result',
          tool_use_id: toAnthropicToolId(message.toolCallId),
          content: message.content.flatMap(userBlock) as Anthropic.ToolResultBlockParam['content'],
          is_error: message.isError,
        },
      ]);
    } else {
      const sameFamily = message.provider === providerId && (providerId === 'anthropic' || message.model === model);
      const blocks: ContentBlockParam[] = [];
      for (const block of message.content) {
        if (block.type === 'text') {
          if (block.text !== '') blocks.push({ type: 'text', text: block.text });
        } else if (block.type === 'thinking') {
          if (!sameFamily) continue;
          if (block.redacted) blocks.push({ type: 'redacted_thinking', data: block.thinking });
          else if (block.signature)
            blocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        } else {
          blocks.push({ type: 'tool_use', id: toAnthropicToolId(block.id), name: block.name, input: block.arguments });
        }
      }
      push('assistant', blocks);
    }
  }
  return out;
}

function userBlock(block: TextBlock | ImageBlock): ContentBlockParam[] {
  if (block.type === 'text') return block.text === '' ? [] : [{ type: 'text', text: block.text }];
  return [
    {
      type: 'image',
      source: {
        type: 'base64',
        media_type: block.mediaType as Anthropic.Base64ImageSource['media_type'],
        data: block.data,
      },
    },
  ];
}

function tailToolTurnHasThinking(messages: MessageParam[]): boolean {
  const tail = messages[messages.length - 1];
  const previous = messages[messages.length - 2];
  const inToolLoop =
    tail?.role === 'user' && Array.isArray(tail.content) && tail.content.some((b) => b.type === 'tool_result');
  if (!inToolLoop || previous?.role !== 'assistant' || !Array.isArray(previous.content)) return true;
  const first = previous.content[0];
  return first?.type === 'thinking' || first?.type === 'redacted_thinking';
}

/**
 * Breakpoints on the last message and on the user message before it: the cache lookup only
 * walks back a limited number of blocks, so the earlier mark keeps long tool turns cacheable.
 */
function markConversationTail(messages: MessageParam[]): void {
  const users = messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  const marks = new Set([messages.length - 1, users[users.length - 2] ?? -1]);
  for (const index of marks) {
    const content = messages[index]?.content;
    if (!Array.isArray(content)) continue;
    const block = [...content].reverse().find((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking');
    if (block) (block as { cache_control?: unknown }).cache_control = EPHEMERAL;
  }
}
