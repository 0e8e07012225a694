/**
 * Request checks the Anthropic Messages API makes, so conversation bugs fail tests the way they
 * would fail in production. Returns the error message of the first violation.
 */
import { isPlainObject as isObj } from '../../common/type-helpers';

type Obj = Record<string, unknown>;
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export interface AnthropicValidationContext {
  /** True when a thinking signature was issued by this endpoint for exactly this text. */
  verifySignature: (thinking: string, signature: string) => boolean;
}

export function validateAnthropicRequest(body: Obj, ctx: AnthropicValidationContext): string | undefined {
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    return 'max_tokens: Field required (a positive integer)';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  const shapeError = validateSystem(body.system) ?? validateTools(body.tools, body.tool_choice);
  if (shapeError) return shapeError;
  const messages = body.messages as unknown[];
  const cacheMarks = countCacheControl(body.system) + countCacheControl(body.tools) + countCacheControl(messages);
  if (cacheMarks > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${cacheMarks}.`;

  const seenToolIds = new Set<string>();
  let pendingToolUse: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const where = `messages.${i}`;
    if (!isObj(m) || (m.role !== 'user' && m.role !== 'assistant'))
      return `${where}.role: Input should be 'user' or 'assistant'`;
    if (i === 0 && m.role !== 'user') return 'messages: first message must use the "user" role';
    const prev = messages[i - 1];
    if (i > 0 && isObj(prev) && prev.role === m.role)
      return (
        `messages: roles must alternate between "user" and "assistant", but found multiple "${m.role}" ` +
        `roles in a row (${where})`
      );
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(blocks)) return `${where}.content: Input should be a valid list or string`;
    const isFinalAssistant = m.role === 'assistant' && i === messages.length - 1;
    if (blocks.length === 0 && !isFinalAssistant)
      return `${where}: all messages must have non-empty content except for the optional final assistant message`;

    if (m.role === 'user') {
      const results = blocks.filter((b) => isObj(b) && b.type === 'tool_result') as Obj[];
      const resultIds = results.map((b) => String(b.tool_use_id));
      const missing = pendingToolUse.filter((id) => !resultIds.includes(id));
      if (missing.length) {
        return (
          `${where}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
          `${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in ` +
          `the next message.`
        );
      }
      const unexpected = resultIds.filter((id) => !pendingToolUse.includes(id));
      if (unexpected.length) {
        return (
          `${where}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ` +
          `${unexpected.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block ` +
          `in the previous message.`
        );
      }
      const firstOther = blocks.findIndex((b) => !(isObj(b) && b.type === 'tool_result'));
      if (results.length && firstOther !== -1 && firstOther < results.length)
        return `${where}: \`tool_result\` blocks must come before any other content`;
      pendingToolUse = [];
    }
    for (let j = 0; j < blocks.length; j++) {
      const error = validateBlock(blocks[j], m.role, `${where}.content.${j}`, ctx);
      if (error) return error;
    }
    if (m.role === 'assistant') {
      const uses = blocks.filter((b) => isObj(b) && b.type === 'tool_use') as Obj[];
      for (const u of uses) {
        const id = String(u.id);
        if (seenToolIds.has(id)) return `${where}: \`tool_use\` ids must be unique: ${id}`;
        seenToolIds.add(id);
      }
      pendingToolUse = uses.map((u) => String(u.id));
    }
  }
  // Only an assistant message leaves tool uses pending: the conversation ends with it.
  if (pendingToolUse.length)
    return (
      'This model does not support assistant message prefill with tool use; the conversation must end ' +
      'with a user message.'
    );
  return validateThinking(body, messages);
}

function validateBlock(
  block: unknown,
  role: unknown,
  where: string,
  ctx: AnthropicValidationContext,
): string | undefined {
  if (!isObj(block)) return `${where}: Input should be an object`;
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string' || block.text === '') return `${where}: text content blocks must be non-empty`;
      return undefined;
    case 'image': {
      const source = block.source;
      if (!isObj(source) || source.type !== 'base64' || typeof source.data !== 'string')
        return `${where}.source: expected a base64 image source`;
      if (!IMAGE_TYPES.has(String(source.media_type)))
        return `${where}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
      return role === 'user' ? undefined : `${where}: images are only allowed in user messages`;
    }
    case 'tool_result': {
      if (role !== 'user') return `${where}: \`tool_result\` blocks are only allowed in user messages`;
      if (typeof block.tool_use_id !== 'string' || !TOOL_ID.test(block.tool_use_id))
        return `${where}.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      if (block.content !== undefined && typeof block.content !== 'string') {
        if (!Array.isArray(block.content)) return `${where}.content: Input should be a valid list or string`;
        for (let k = 0; k < block.content.length; k++) {
          const error = validateBlock(block.content[k], 'user', `${where}.content.${k}`, ctx);
          if (error) return error;
        }
      }
      return undefined;
    }
    case 'tool_use':
      if (role !== 'assistant') return `${where}: \`tool_use\` blocks are only allowed in assistant messages`;
      if (typeof block.id !== 'string' || !TOOL_ID.test(block.id))
        return `${where}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      if (typeof block.name !== 'string' || !TOOL_NAME.test(block.name))
        return `${where}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
      if (!isObj(block.input)) return `${where}.input: Input should be a valid dictionary`;
      return undefined;
    case 'thinking':
      if (role !== 'assistant') return `${where}: \`thinking\` blocks are only allowed in assistant messages`;
      if (typeof block.thinking !== 'string' || typeof block.signature !== 'string')
        return `${where}.signature: Field required`;
      if (!ctx.verifySignature(block.thinking, block.signature))
        return `${where}: Invalid \`signature\` in \`thinking\` block`;
      return undefined;
    case 'redacted_thinking':
      if (role !== 'assistant') return `${where}: \`redacted_thinking\` blocks are only allowed in assistant messages`;
      return typeof block.data === 'string' ? undefined : `${where}.data: Field required`;
    default:
      return `${where}.type: Input tag '${String(block.type)}' is not a supported content block type`;
  }
}

function validateSystem(system: unknown): string | undefined {
  if (system === undefined || typeof system === 'string') return undefined;
  if (!Array.isArray(system)) return 'system: Input should be a valid list or string';
  for (let i = 0; i < system.length; i++) {
    const b = system[i];
    if (!isObj(b) || b.type !== 'text' || typeof b.text !== 'string' || b.text === '')
      return `system.${i}: text content blocks must be non-empty`;
  }
  return undefined;
}

function validateTools(tools: unknown, choice: unknown): string | undefined {
  const names: string[] = [];
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
    for (let i = 0; i < tools.length; i++) {
      const t = tools[i];
      if (!isObj(t) || typeof t.name !== 'string' || !TOOL_NAME.test(t.name))
        return `tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
      if (!isObj(t.input_schema) || t.input_schema.type !== 'object')
        return `tools.${i}.input_schema: type must be 'object'`;
      if (names.includes(t.name)) return `tools: Tool names must be unique (${t.name})`;
      names.push(t.name);
    }
  }
  if (choice !== undefined) {
    if (names.length === 0) return 'tool_choice may only be specified while providing tools.';
    if (!isObj(choice) || !['auto', 'any', 'none', 'tool'].includes(String(choice.type)))
      return "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'";
    if (choice.type === 'tool' && !names.includes(String(choice.name)))
      return `tool_choice: Tool '${String(choice.name)}' not found in tools`;
  }
  return undefined;
}

function validateThinking(body: Obj, messages: unknown[]): string | undefined {
  const thinking = body.thinking;
  if (thinking === undefined || (isObj(thinking) && thinking.type === 'disabled')) return undefined;
  if (!isObj(thinking) || !['enabled', 'adaptive'].includes(String(thinking.type)))
    return "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'";
  if (thinking.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (!Number.isInteger(budget) || (budget as number) < 1024)
      return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if ((budget as number) >= (body.max_tokens as number))
      return '`max_tokens` must be greater than `thinking.budget_tokens`';
  }
  if (body.temperature !== undefined && body.temperature !== 1)
    return '`temperature` may only be set to 1 when thinking is enabled';
  if (body.top_p !== undefined && (body.top_p as number) < 0.95)
    return '`top_p` must be greater than or equal to 0.95 when thinking is enabled';
  if (isObj(body.tool_choice) && (body.tool_choice.type === 'any' || body.tool_choice.type === 'tool')) {
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  }
  const last = messages[messages.length - 1] as Obj;
  const prev = messages[messages.length - 2] as Obj | undefined;
  const inToolLoop = Array.isArray(last.content) && last.content.some((b) => isObj(b) && b.type === 'tool_result');
  if (inToolLoop && prev && Array.isArray(prev.content)) {
    const first = prev.content[0] as Obj | undefined;
    if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
      return (
        `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or ` +
        `\`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final ` +
        `\`assistant\` message must start with a thinking block.`
      );
    }
  }
  return undefined;
}

function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countCacheControl(v), 0);
  if (!isObj(value)) return 0;
  let n = value.cache_control !== undefined && value.cache_control !== null ? 1 : 0;
  if (Array.isArray(value.content)) n += countCacheControl(value.content);
  return n;
}
