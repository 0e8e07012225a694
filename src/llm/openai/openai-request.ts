/**
 * Neutral request → OpenAI Chat Completions request (also vLLM, Ollama `/v1`, LocalAI,
 * DeepSeek, Gemini's OpenAI endpoint).
 *
 * - Reasoning goes back as `reasoning_content` only to the compatible server and model that wrote
 *   it (DeepSeek's thinking mode requires it on tool-calling turns; others ignore it). OpenAI
 *   itself takes no reasoning back, and other providers' thinking is dropped. Tool calls carry
 *   their `extra_content` (Gemini thought signatures) back to the same model the same way.
 * - Tool results carry text only; images from tool results follow as one user message after the
 *   run of tool messages.
 * - `response_format` is sent where the model has a JSON mode (or is unknown, i.e. declared by
 *   the caller); JSON mode also needs the word "JSON" in the prompt, so the instruction is added.
 */
import type OpenAI from 'openai';
import type { CallOptions, ImageBlock, Message, TextBlock, ToolChoice } from '../../contracts/message-model';
import type { ResolvedCall } from '../adapter-types';
import { jsonInstruction } from '../response-format';
import { isOpenAIReasoningModel } from '../../policy/call-settings';
import { toOpenAIToolId } from '../tool-ids';

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;
type Params = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
type UserPart = OpenAI.Chat.ChatCompletionContentPartText | OpenAI.Chat.ChatCompletionContentPartImage;
/** `reasoning_content` is a compatible servers' extension (DeepSeek, vLLM). */
type AssistantParam = OpenAI.Chat.ChatCompletionAssistantMessageParam & { reasoning_content?: string };
/** `extra_content` is Gemini's extension carrying a thought signature. */
type ToolCallParam = OpenAI.Chat.ChatCompletionMessageFunctionToolCall & { extra_content?: unknown };

export function toOpenAIParams({ request, provider: { id: providerId }, model, info }: ResolvedCall): Params {
  const options: CallOptions = request.options ?? {};
  const nativeJson = info.capabilities.jsonMode || !info.known;
  const system = [request.systemPrompt, jsonInstruction(options.responseFormat)].filter(Boolean).join('\n\n');
  const messages: ChatMessage[] = [];
  if (system) messages.push({ role: 'system', content: system });
  messages.push(...toOpenAIMessages(request.messages, providerId, model));

  const params: Params = { model, messages };
  if (options.maxTokens !== undefined) {
    // OpenAI's own API wants max_completion_tokens (reasoning models refuse max_tokens);
    // compatible servers widely understand only max_tokens.
    if (providerId === 'openai') params.max_completion_tokens = options.maxTokens;
    else params.max_tokens = options.maxTokens;
  }
  // OpenAI's reasoning models refuse sampling parameters other than their defaults and stop
  // sequences; a run that sets them on such a model is refused before it starts (policy/call-settings).
  const reasoningModel = isOpenAIReasoningModel({ provider: providerId, capabilities: info.capabilities });
  if (options.temperature !== undefined && !reasoningModel) params.temperature = options.temperature;
  if (options.topP !== undefined && !reasoningModel) params.top_p = options.topP;
  if (options.stopSequences?.length && !reasoningModel) params.stop = options.stopSequences;
  if (options.tools?.length) {
    params.tools = options.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  // Without tools there is nothing to choose; both APIs refuse a tool_choice alone.
  if (options.toolChoice && options.tools?.length) params.tool_choice = toolChoice(options.toolChoice);
  if (options.responseFormat && options.responseFormat.type !== 'text' && nativeJson) {
    const format = options.responseFormat;
    params.response_format =
      format.type === 'json'
        ? { type: 'json_object' }
        : {
            type: 'json_schema',
            json_schema: { name: format.name, schema: format.schema, strict: format.strict ?? false },
          };
  }
  // A budget becomes a reasoning effort for every model that thinks (or that nobody described), as
  // compatible servers (vLLM, Ollama, Gemini's endpoint) take it too.
  if (options.thinkingBudget && (info.capabilities.thinking || !info.known)) {
    params.reasoning_effort =
      options.thinkingBudget <= 2048 ? 'low' : options.thinkingBudget <= 8192 ? 'medium' : 'high';
  }
  return params;
}

function toolChoice(choice: ToolChoice): OpenAI.Chat.ChatCompletionToolChoiceOption {
  if (typeof choice === 'string') return choice;
  return { type: 'function', function: { name: choice.name } };
}

function toOpenAIMessages(messages: Message[], providerId: string, model: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pendingImages: UserPart[] = [];
  const flushImages = (): void => {
    if (pendingImages.length === 0) return;
    out.push({
      role: 'user',
      content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...pendingImages],
    });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool_result') flushImages();
    if (message.role === 'user') {
      if (typeof message.content === 'string') out.push({ role: 'user', content: message.content });
      else out.push({ role: 'user', content: message.content.map(userPart) });
    } else if (message.role === 'tool_result') {
      const text = message.content.map((b) => (b.type === 'text' ? b.text : '(image attached below)')).join('\n');
      pendingImages.push(...message.content.filter((b): b is ImageBlock => b.type === 'image').map(userPart));
      out.push({ role: 'tool', tool_call_id: toOpenAIToolId(message.toolCallId), content: text });
    } else {
      const text = message.content
        .filter((b): b is TextBlock => b.type === 'text')
        .map((b) => b.text)
        .join('');
      const sameModel = providerId !== 'openai' && message.provider === providerId && message.model === model;
      const toolCalls = message.content.flatMap((b): ToolCallParam[] => {
        if (b.type !== 'tool_call') return [];
        const call: ToolCallParam = {
          id: toOpenAIToolId(b.id),
          type: 'function',
          function: { name: b.name, arguments: JSON.stringify(b.arguments) },
        };
        if (sameModel && b.providerExtras?.extra_content) call.extra_content = b.providerExtras.extra_content;
        return [call];
      });
      if (!text && toolCalls.length === 0) continue;
      const assistant: AssistantParam = { role: 'assistant', content: text || null };
      if (toolCalls.length) assistant.tool_calls = toolCalls;
      const reasoning = message.content
        .flatMap((b) => (b.type === 'thinking' && !b.redacted ? [b.thinking] : []))
        .join('');
      if (reasoning && sameModel) assistant.reasoning_content = reasoning;
      out.push(assistant);
    }
  }
  flushImages();
  return out;
}

function userPart(block: TextBlock | ImageBlock): UserPart {
  if (block.type === 'text') return { type: 'text', text: block.text };
  return { type: 'image_url', image_url: { url: `data:${block.mediaType};base64,${block.data}` } };
}
